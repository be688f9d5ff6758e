import assert from "node:assert/strict";
import { pointsOutside } from "../../src/policy/scope.ts";

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
