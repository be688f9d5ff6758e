/**
 * Hooks a sandboxed (third-party) plugin registers, through `svc run`: the registration crosses
 * as data, and each run of the hook is a message to the plugin's Worker answered with what a hook
 * command would print.
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

Deno.test("a global plugin's PreToolUse hook runs in its sandbox and denies a call with a reason the model sees", async () => {
  await using box = await sandbox({ "notes.txt": "secret\n", "open.txt": "public\n" });
  const config = `${box.home}/.config/svc`;
  const plugin = `${config}/plugins/guard`;
  await Deno.mkdir(plugin, { recursive: true });
  await Deno.writeTextFile(
    `${config}/config.json`,
    JSON.stringify({ plugins: ["svc-core-fs", "guard"] }),
  );
  await Deno.writeTextFile(
    `${plugin}/manifest.json`,
    JSON.stringify({ name: "guard", version: "1.0.0", svc_version: "*" }),
  );
  await Deno.writeTextFile(
    `${plugin}/mod.ts`,
    `export function register_hooks(hooks) {
  hooks.add({
    event: "PreToolUse",
    matcher: "Read",
    run(input) {
      console.log("guard saw " + input.tool_name + " " + input.tool_input.file_path);
      if (!String(input.tool_input.file_path).includes("notes")) return undefined;
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "notes are private",
        },
      };
    },
  });
}
`,
  );
  // The second run starts from the remembered registrations (the Worker starts at the hook's run).
  for (let run = 1; run <= 2; run++) {
    const fake = await startFakeProvider([
      {
        tool_calls: [
          { name: "read_file", arguments: { file: "notes.txt" }, id: "call_1" },
          { name: "read_file", arguments: { file: "open.txt" }, id: "call_2" },
        ],
      },
      { text: "done" },
    ]);
    const out = await svc(
      ["run", "--base-url", fake.url, "--model", "m", "-p", "read both", "--output", "json"],
      { cwd: box.worktree, env: box.env },
    );
    await fake.close();
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /\[plugin guard\] guard saw Read notes\.txt\n/);
    const result = JSON.parse(out.stdout);
    assert.deepEqual(
      result.tool_calls.map((c: { id: string; decision: string }) => [c.id, c.decision]),
      [["call_1", "deny"], ["call_2", "allow"]],
    );
    const tools = fake.requests[1].body.messages.filter((m: { role: string }) => m.role === "tool");
    assert.match(tools[0].content, /notes are private/);
    assert.match(tools[1].content, /public/);
  }
});
