import assert from "node:assert/strict";
import { join } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
const HIDDEN = ["rg", "git", "python3", "npm"];

/** A folder of links to every program on PATH except `hidden`, to use as the only PATH entry. */
async function pathWithout(hidden: string[]): Promise<string> {
  const bin = await Deno.makeTempDir({ prefix: "svc-path-" });
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").filter(Boolean)) {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      continue;
    }
    for (const { name } of entries) {
      if (hidden.includes(name)) continue;
      await Deno.symlink(join(dir, name), join(bin, name)).catch(() => {});
    }
  }
  return bin;
}

Deno.test("tests that run git, ripgrep, python3 or npm are ignored, naming it, when it is missing", async () => {
  const bin = await pathWithout(HIDDEN);
  try {
    const files = [
      "plugins/svc-core-git/tests/",
      "plugins/svc-core-fs/tests/grep.test.ts",
      "plugins/svc-core-fs/tests/glob.test.ts",
      "plugins/svc-core-dev/tests/dev_tools.test.ts",
      "tests/plugin/cli_install.test.ts",
    ];
    const out = await new Deno.Command(Deno.execPath(), {
      // The outer run type-checked these files already.
      args: ["test", "-A", "--quiet", "--no-check", ...files],
      cwd: ROOT,
      env: { ...Deno.env.toObject(), PATH: bin, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
    const lines = text.split("\n");
    const ignored = lines.filter((line) => / \.\.\. ignored/.test(line));
    const needing = lines.filter((line) =>
      /\(needs (git|ripgrep|python3|npm)\) \.\.\. /.test(line)
    );
    // Every test that names a program it needs was ignored, and only those (and root's chmod test).
    assert.deepEqual(needing.filter((line) => !line.endsWith("... ignored (0ms)")), []);
    assert.deepEqual(
      ignored.filter((line) => !/\(needs (git|ripgrep|python3|npm)\)|\(needs a user/.test(line)),
      [],
    );
    const count = (program: string) => needing.filter((l) => l.includes(`(needs ${program})`));
    assert.deepEqual(
      [count("git").length, count("ripgrep").length, count("python3").length, count("npm").length],
      [25, 3, 3, 2],
    );
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});
