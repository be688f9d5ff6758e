/** README.md's first block is what a newcomer types: its main job must run as printed. */
import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { sandbox } from "../_support/cli.ts";
import { CALLER_DENO_DIR } from "../_support/builds.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

const CHECKOUT = new URL("../../", import.meta.url).pathname;

/** The first sh block's `deno task svc ...` command, continuation lines joined, as words. */
async function mainJob(): Promise<string[]> {
  const readme = await Deno.readTextFile(`${CHECKOUT}README.md`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme)![1].replaceAll("\\\n", " ");
  const line = block.split("\n").find((l) => l.startsWith("deno task svc run "));
  assert.ok(line, `no "deno task svc run" line in README.md's first block:\n${block}`);
  return [...line.replace(/#.*$/, "").matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) =>
    m[1] ?? m[2] ?? m[3]
  );
}

Deno.test("README's main job runs as printed in a fresh copy of the checkout, reading a file the clone has", async () => {
  const words = await mainJob();
  const base = words[words.indexOf("--base-url") + 1];
  const prompt = words[words.indexOf("--prompt") + 1];
  const file = /\b([\w.-]+\.(?:md|txt|json))\b/.exec(prompt)?.[1];
  assert.ok(file, `the prompt names no file: ${prompt}`);
  // What a fresh clone has: the tracked files, not this checkout's leftovers.
  const tracked = new TextDecoder().decode(
    (await new Deno.Command("git", { args: ["ls-files", file], cwd: CHECKOUT }).output()).stdout,
  );
  assert.equal(tracked.trim(), file, `${file} is not in the repository, so a clone lacks it`);

  await using box = await sandbox();
  for (const name of ["main.ts", "deno.json", "deno.lock", "src", "plugins", file]) {
    await cp(`${CHECKOUT}${name}`, `${box.worktree}/${name}`, { recursive: true });
  }
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "file_read", arguments: { path: file } }] },
    { text: "svc is a local agent runtime." },
  ]);
  try {
    const args = words.slice(1).map((w) => w === base ? fake.url : w);
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: box.worktree,
      env: { ...box.env, DENO_DIR: CALLER_DENO_DIR },
      stdin: "null",
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    assert.equal(out.code, 0, text(out.stderr));
    const result = JSON.parse(text(out.stdout));
    assert.deepEqual([result.status, result.content], ["ok", "svc is a local agent runtime."]);
    const read = fake.requests[1].body.messages.at(-1).content as string;
    const first = (await Deno.readTextFile(`${CHECKOUT}${file}`)).split("\n")[0];
    assert.ok(read.includes(first), read.slice(0, 300));
  } finally {
    await fake.close();
  }
});
