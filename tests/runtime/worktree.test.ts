import assert from "node:assert/strict";
import { SVC_PERMISSIONS } from "../../src/launch/svc_command.ts";
import { resolveWorktree } from "../../src/runtime/worktree.ts";

Deno.test("a worktree that does not exist is named as such, and the canonical path of one that does is returned", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-wt-" });
  try {
    assert.equal(resolveWorktree(`${dir}/.`), await Deno.realPath(dir));
    assert.throws(() => resolveWorktree(`${dir}/gone`), {
      message: `Worktree ${dir}/gone does not exist`,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// Needs /dev/shm: Linux only.
Deno.test({
  name:
    "a worktree under /dev, which Deno keeps from svc's permissions, is refused with why, not called missing",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const module = new URL("../../src/runtime/worktree.ts", import.meta.url).href;
    const script = await Deno.makeTempFile({ prefix: "svc-wt-", suffix: ".ts" });
    await Deno.writeTextFile(
      script,
      `import { resolveWorktree } from ${JSON.stringify(module)};\n` +
        `try { resolveWorktree("/dev/shm"); } catch (err) { console.log(err.message); }`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-check", ...SVC_PERMISSIONS, script],
      stdin: "null",
    }).output().finally(() => Deno.remove(script));
    assert.equal(
      new TextDecoder().decode(out.stdout).trim(),
      "Worktree /dev/shm cannot be used: svc is not allowed to read there (Deno keeps /dev from " +
        "the installed command's permissions); use a worktree on a regular file system",
    );
  },
});
