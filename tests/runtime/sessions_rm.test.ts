/**
 * `svc sessions rm` (in-process: `remove` of src/runtime/session_commands.ts) takes the session's
 * undo checkpoints with it, and never follows a link out of `.svc` to do so.
 */
import assert from "node:assert/strict";
import { remove } from "../../src/runtime/session_commands.ts";

const AT = "2026-11-22T05:06:07.000Z";

async function worktreeWith(names: string[]): Promise<string> {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-rm-" }));
  await Deno.mkdir(`${worktree}/.svc/sessions`, { recursive: true });
  for (const name of names) {
    const data = { name, created_at: AT, updated_at: AT, messages: [] };
    await Deno.writeTextFile(`${worktree}/.svc/sessions/${name}.json`, JSON.stringify(data));
  }
  return worktree;
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

async function rm(worktree: string, name: string): Promise<string[]> {
  const out: string[] = [];
  await remove(worktree, name, { yes: true, out: (text) => out.push(text) });
  return out;
}

Deno.test("svc sessions rm removes the session's checkpoint folder and only that one", async () => {
  const worktree = await worktreeWith(["one", "two"]);
  const outside = await Deno.makeTempDir({ prefix: "svc-rm-outside-" });
  await Deno.writeTextFile(`${outside}/keep.txt`, "keep");
  try {
    const root = `${worktree}/.svc/checkpoints`;
    await Deno.mkdir(`${root}/one/nested`, { recursive: true });
    await Deno.writeTextFile(`${root}/one/20261122T050607000_abcdef.json`, "{}");
    // A link inside the folder is removed as a link: its target stays.
    await Deno.symlink(outside, `${root}/one/nested/out`);
    await Deno.mkdir(`${root}/two`);
    assert.deepEqual(await rm(worktree, "one"), ["deleted one and its undo checkpoints"]);
    assert.equal(await exists(`${root}/one`), false);
    assert.equal(await exists(`${root}/two`), true);
    assert.equal(await Deno.readTextFile(`${outside}/keep.txt`), "keep");
    // No checkpoints: the plain message.
    await Deno.remove(`${root}/two`);
    assert.deepEqual(await rm(worktree, "two"), ["deleted two"]);
  } finally {
    await Deno.remove(worktree, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("svc sessions rm never follows a link out of .svc: a linked checkpoint folder goes as a link, a linked checkpoints root is left alone", async () => {
  const worktree = await worktreeWith(["linked", "rooted"]);
  const outside = await Deno.makeTempDir({ prefix: "svc-rm-outside-" });
  await Deno.mkdir(`${outside}/rooted`);
  await Deno.writeTextFile(`${outside}/rooted/keep.txt`, "keep");
  await Deno.writeTextFile(`${outside}/keep.txt`, "keep");
  const errors: string[] = [];
  const error = console.error;
  console.error = (text: string) => errors.push(text);
  try {
    const root = `${worktree}/.svc/checkpoints`;
    await Deno.mkdir(root);
    await Deno.symlink(outside, `${root}/linked`);
    assert.deepEqual(await rm(worktree, "linked"), ["deleted linked and its undo checkpoints"]);
    assert.equal(await exists(`${root}/linked`), false);
    assert.equal(await Deno.readTextFile(`${outside}/keep.txt`), "keep");
    // `.svc/checkpoints` itself leads outside: the session goes, nothing there is removed.
    await Deno.remove(root);
    await Deno.symlink(outside, root);
    assert.deepEqual(await rm(worktree, "rooted"), ["deleted rooted"]);
    assert.equal(await exists(`${worktree}/.svc/sessions/rooted.json`), false);
    assert.equal(await Deno.readTextFile(`${outside}/rooted/keep.txt`), "keep");
    assert.match(errors.join("\n"), /kept the undo checkpoints of rooted: .* leads outside/);
  } finally {
    console.error = error;
    await Deno.remove(worktree, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
