import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

Deno.test("the first request carries under 7,000 bytes of system prompt and tool schemas", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "ok" }]);
  const out = await svc(["run", "--base-url", fake.url, "--model", "m", "-p", "hi"], {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const body = fake.requests[0].body;
  const names = body.tools.map((t: { function: { name: string } }) => t.function.name).sort();
  assert.deepEqual(names, [
    "ask",
    "code_format",
    "code_lint",
    "code_test",
    "delegate",
    "file_edit",
    "file_read",
    "file_write",
    "git",
    "git_commit",
    "glob",
    "grep",
    "list_dir",
    "run_command",
    "web_fetch",
    "web_search",
  ]);
  const system = body.messages.filter((m: { role: string }) => m.role === "system");
  const bytes = new TextEncoder().encode(JSON.stringify(system) + JSON.stringify(body.tools))
    .length;
  console.log(`system prompt + ${names.length} tool schemas: ${bytes} bytes`);
  // 6,899 bytes in a temp folder outside git (docs/prompt.md); a git repository, a long path or a
  // named time zone add a few dozen.
  assert.ok(bytes < 7_000, `${bytes} bytes`);
  // The environment block (docs/prompt.md) ends the system prompt and stays under 600 bytes.
  const prompt = system.at(-1).content as string;
  const block = new TextEncoder().encode(prompt.slice(prompt.indexOf("\nEnvironment:\n") + 1));
  console.log(`environment block: ${block.length} bytes`);
  assert.ok(prompt.includes("\nEnvironment:\nDate: ") && block.length <= 600, `${block.length}`);
});
