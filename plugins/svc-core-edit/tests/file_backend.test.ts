/** file_write and file_edit through a front-end's file backend (an ACP editor's buffers). */
import assert from "node:assert/strict";
import type { FileAccess } from "../../../src/tool/types.ts";
import { fileEdit } from "../src/file_edit.ts";
import { fileWrite } from "../src/file_write.ts";
import { context, worktree } from "./_context.ts";

/** An editor holding `buffers`: reads answer from them, writes are recorded there. */
function editor(buffers: Record<string, string>) {
  const writes: [string, string][] = [];
  const files: FileAccess = {
    readText: (path) =>
      path in buffers ? Promise.resolve(buffers[path]) : Promise.reject(new Error("no buffer")),
    writeText: (path, content) => {
      writes.push([path, content]);
      buffers[path] = content;
      return Promise.resolve();
    },
  };
  return { files, writes };
}

Deno.test("file_edit edits the editor's unsaved text and writes through the editor, not the disk", async () => {
  await using w = await worktree({ "a.txt": "on disk: red\n" });
  const { files, writes } = editor({ [w.path("a.txt")]: "unsaved: red\n" });
  const out = await fileEdit.run(
    { path: "a.txt", old: "red", new: "blue" },
    { ...context(w.root), files },
  );
  assert.equal(typeof out === "object" && out.ok !== false, true, JSON.stringify(out));
  assert.deepEqual(writes, [[w.path("a.txt"), "unsaved: blue\n"]]);
  assert.equal(await w.read("a.txt"), "on disk: red\n");
});

Deno.test("file_write through the editor refuses a symbolic link that leads outside the worktree", async () => {
  await using w = await worktree();
  await using outside = await worktree({ "target.txt": "keep\n" });
  await Deno.symlink(outside.path("target.txt"), w.path("link.txt"));
  const { files, writes } = editor({});
  const out = await fileWrite.run(
    { path: "link.txt", content: "owned" },
    { ...context(w.root), files },
  );
  assert.equal(typeof out === "object" && out.ok, false);
  assert.match(typeof out === "object" ? out.content : out, /leads outside .*nothing was written/);
  assert.deepEqual(writes, []);
  assert.equal(await outside.read("target.txt"), "keep\n");
});
