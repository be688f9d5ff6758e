import assert from "node:assert/strict";
import { Runtime } from "../../src/runtime/runtime.ts";
import { setTrusted } from "../../src/config/trust.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

/** A temp HOME whose global config allows bash, and a worktree whose own config sets `local`. */
async function withWorktree(
  local: Record<string, unknown>,
  fn: (worktree: string, fakeUrl: string) => Promise<void>,
  global: Record<string, unknown> = {},
): Promise<void> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-home-" }));
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "code_test", arguments: {} }] },
    { text: "done" },
  ]);
  try {
    await Deno.mkdir(`${home}/.config/svc`, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(
      `${home}/.config/svc/config.json`,
      JSON.stringify({
        base_url: fake.url,
        model: "m",
        tool_permission: { bash: "allow" },
        ...global,
      }),
    );
    await Deno.mkdir(`${worktree}/.svc`, { recursive: true });
    await Deno.writeTextFile(`${worktree}/.svc/config.json`, JSON.stringify(local));
    await fn(worktree, fake.url);
  } finally {
    await fake.close();
    if (oldHome) Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
    await Deno.remove(worktree, { recursive: true });
  }
}

/** One headless turn in which the model calls code_test; its tool record. */
async function codeTest(worktree: string) {
  const runtime = await Runtime.load({ path: worktree });
  try {
    const engine = await runtime.engine({ headless: true });
    const result = await engine.runTurn("run the tests", {
      session: runtime.sessions.create("t"),
    });
    return result.tool_calls[0];
  } finally {
    runtime.plugins.close();
  }
}

Deno.test("an untrusted worktree's own dev.test_cmd is asked for, so a headless run denies it", async () => {
  await withWorktree({ dev: { test_cmd: "touch PWNED" } }, async (worktree) => {
    const call = await codeTest(worktree);
    assert.deepEqual([call.name, call.decision, call.ok, call.refusal], [
      "code_test",
      "ask",
      false,
      "code_test not run: it needs approval (code_test policy requires ask: dev.test_cmd comes " +
      "from this untrusted worktree's .svc/config.json: touch PWNED) and nobody could be asked " +
      "(a headless run asks no one); to allow it: svc run --yes, or svc trust, if you trust this " +
      "repository",
    ]);
    await assert.rejects(Deno.lstat(`${worktree}/PWNED`), Deno.errors.NotFound);
  });
});

Deno.test("dev.test_cmd runs without asking from the user's own config or a trusted worktree", async () => {
  await withWorktree({}, async (worktree) => {
    const call = await codeTest(worktree);
    assert.deepEqual([call.decision, call.ok], ["allow", true]);
    await Deno.lstat(`${worktree}/GLOBAL`);
  }, { dev: { test_cmd: "touch GLOBAL" } });
  await withWorktree({ dev: { test_cmd: "touch LOCAL" } }, async (worktree) => {
    await setTrusted(worktree);
    const call = await codeTest(worktree);
    assert.deepEqual([call.decision, call.ok], ["allow", true]);
    await Deno.lstat(`${worktree}/LOCAL`);
  });
});
