import assert from "node:assert/strict";
import { pointsOutside, touchesControlFiles } from "../../src/policy/scope.ts";

async function tree() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-scope-" }));
  const work = `${root}/proj`;
  await Deno.mkdir(`${work}/sub`, { recursive: true });
  await Deno.mkdir(`${root}/proj_evil`);
  await Deno.writeTextFile(`${root}/secret.txt`, "s");
  await Deno.symlink(`${root}/secret.txt`, `${work}/link_out`);
  await Deno.symlink(`${root}/proj_evil`, `${work}/dir_out`);
  await Deno.symlink(`${root}/nowhere/new.txt`, `${work}/dangling_out`);
  await Deno.symlink(`${work}/sub/later.txt`, `${work}/dangling_in`);
  // The kernel resolves `sub/hop/..` to `root`, not to `sub`.
  await Deno.symlink(`${root}/proj_evil`, `${work}/sub/hop`);
  return { root, work };
}

Deno.test("path scoping judges .., prefixes, symlinks and NUL bytes canonically", async () => {
  const { root, work } = await tree();
  const cases: Array<[string, boolean]> = [
    ["notes.txt", false],
    ["sub/../notes.txt", false],
    ["./sub/new/deep/file.txt", false],
    [work, false],
    ["..", true],
    ["../proj_evil/x", true],
    [`${root}/proj_evil/x`, true],
    ["sub/../../secret.txt", true],
    ["sub/hop/../secret.txt", true],
    ["sub/hop/../proj/notes.txt", false],
    ["/etc/passwd", true],
    ["link_out", true],
    ["dir_out/new.txt", true],
    ["dangling_out", true],
    ["dangling_in", false],
    ["bad\0name", true],
    ["~/.ssh/id_rsa", true],
    ["**/*.ts", false],
    ["../**/*.ts", true],
    ["sub/**/../../../x", true],
    [`${root}/*`, true],
  ];
  for (const [path, outside] of cases) {
    assert.equal(pointsOutside(work, [path]), outside, path);
  }
  await Deno.remove(root, { recursive: true });
});

Deno.test("control-file detection sees .svc and .git through paths and symlinks", async () => {
  const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-ctl-" }));
  await Deno.mkdir(`${work}/.git/hooks`, { recursive: true });
  await Deno.mkdir(`${work}/src`);
  await Deno.symlink(`${work}/.git/hooks`, `${work}/src/hooks`);
  const cases: Array<[string, boolean]> = [
    [".svc/config.json", true],
    ["./.svc/plugins/x/mod.ts", true],
    [".git/hooks/pre-commit", true],
    ["src/../.git/config", true],
    ["src/hooks/pre-commit", true],
    [".svcrc", false],
    [".github/workflows/ci.yml", false],
    ["src/app.ts", false],
  ];
  for (const [path, expected] of cases) {
    assert.equal(touchesControlFiles(work, [path]), expected, path);
  }
  await Deno.remove(work, { recursive: true });
});
