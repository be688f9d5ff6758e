import assert from "node:assert/strict";
import { set } from "../../src/cli/config_action.ts";
import { isApproved } from "../../src/provider/models_file.ts";

Deno.test("svc config set model approves a ref as a run resolves it: its provider, unless the same file names the server", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-home-" }));
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  const oldHome = Deno.env.get("HOME");
  const error = console.error;
  Deno.env.set("HOME", home);
  console.error = () => {};
  try {
    await Deno.mkdir(`${home}/.config/svc`, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(
      `${home}/.config/svc/config.json`,
      JSON.stringify({ base_url: "http://127.0.0.1:8000" }),
    );
    // The worktree's file names no server: the ref is openai's, and approving it records that.
    await set("model", "openai/gpt-x", { path: worktree });
    // The global file names the local server: the ref stays its model id, nothing to approve.
    await set("model", "anthropic/claude-x", { global: true, path: worktree });
    assert.deepEqual([
      await isApproved("openai", "gpt-x"),
      await isApproved("anthropic", "claude-x"),
      await isApproved("generic", "anthropic/claude-x"),
    ], [true, false, false]);
  } finally {
    console.error = error;
    if (oldHome) Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
    await Deno.remove(worktree, { recursive: true });
  }
});
