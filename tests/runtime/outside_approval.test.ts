/**
 * What the policy judged is what a write may do: a call judged inside the worktree keeps its write
 * inside even when a symbolic link is swapped while the call waits for approval; a call approved
 * for a path outside the worktree may write there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { harness, readStored } from "../_support/engine.ts";
import { fileWrite } from "../../plugins/svc-core-edit/src/file_write.ts";
import type { Approver } from "../../src/tool/approval.ts";

/** A temp folder outside every worktree, holding `f.txt`. */
async function outsideFolder() {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-outside-" }));
  await Deno.writeTextFile(join(path, "f.txt"), "outside\n");
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

const write = (path: string) => ({
  tool_calls: [{ name: "file_write", arguments: { path, content: "from the model\n" } }],
});

Deno.test("a write judged inside stays inside when a link is swapped during approval", async () => {
  await using outside = await outsideFolder();
  let worktree = "";
  // Approves, but first puts a link to the outside folder where the checked folder was.
  const approver: Approver = async () => {
    await Deno.rename(join(worktree, "d"), join(worktree, "d.moved"));
    await Deno.symlink(outside.path, join(worktree, "d"));
    return { answer: "once", by: "user" };
  };
  await using h = await harness([write("d/f.txt"), { text: "done" }], {
    tools: [fileWrite],
    approver,
  });
  worktree = h.worktree;
  await Deno.mkdir(join(worktree, "d"));
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(result.tool_calls.map((c) => [c.decision, c.ok]), [["ask", false]]);
  assert.equal(
    h.fake.requests[1].body.messages.at(-1).content,
    `Cannot write ${join(worktree, "d/f.txt")}: ${join(worktree, "d")} leads outside ` +
      `${worktree} through a symbolic link; nothing was written`,
  );
  assert.deepEqual(
    [await names(outside.path), await Deno.readTextFile(join(outside.path, "f.txt"))],
    [["f.txt"], "outside\n"],
  );
});

Deno.test("a write approved for a path outside the worktree goes through the link", async () => {
  await using outside = await outsideFolder();
  const approver: Approver = () => Promise.resolve({ answer: "once", by: "user" });
  await using h = await harness([write("out/f.txt"), { text: "done" }], {
    tools: [fileWrite],
    approver,
    config: { tool_permission: { edit: "allow" } },
  });
  await Deno.symlink(outside.path, join(h.worktree, "out"));
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.deepEqual(result.tool_calls.map((c) => [c.decision, c.ok]), [["ask", true]]);
  const stored = await readStored(h, "t");
  assert.deepEqual(
    [stored.permissions[0].reason, await Deno.readTextFile(join(outside.path, "f.txt"))],
    ["path is outside the worktree", "from the model\n"],
  );
});
