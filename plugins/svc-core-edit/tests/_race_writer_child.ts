/**
 * The writing process of `file_write_race_installed.test.ts`, run with svc's own permissions
 * (SVC_PERMISSIONS, no -A): writes into folder `d` of a worktree while another process swaps it
 * with a link to `outside`, and prints `{writes, refused, landed, ms, method}` as JSON.
 *
 * Args: `tools` (file_write and file_edit, as svc runs them) or `path-check` (writeFileAtomic with
 * confineTo, the edit tools' write before bubblewrap: it stops at the first write that lands
 * outside), the worktree, the outside folder, the most writes, the writes run at once, the most
 * milliseconds.
 */
import { writeFileAtomic } from "../../../src/plugin/api.ts";
import { confinedWriteMethod } from "../../../src/tool/confined_write.ts";
import { fileEdit } from "../src/file_edit.ts";
import { fileWrite } from "../src/file_write.ts";
import { context } from "./_context.ts";

const [mode, root, outside, most, atOnce, maxMs] = Deno.args;
const ctx = context(root);

/** What a write outside changes: the names in `outside` and the contents of its two files. */
async function signature(): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(outside)) names.push(entry.name);
  const read = (name: string) => Deno.readTextFile(`${outside}/${name}`).catch(() => "?");
  return `${names.sort().join("/")}\n${await read("f.txt")}${await read("e.txt")}`;
}

/** One write attempt number `n`: whether it was refused. */
async function attempt(n: number): Promise<boolean> {
  const path = ["d/f.txt", `d/w${n}.txt`, `d/s${n}/w.txt`, "d/e.txt"][n % 4];
  if (mode === "path-check") {
    try {
      await writeFileAtomic(`${root}/${path}`, `write ${n}\n`, {
        confineTo: root,
        parents: true,
        keepMode: true,
      });
      return false;
    } catch {
      return true;
    }
  }
  const result = n % 4 === 3
    ? await fileEdit.run({ path, old: "edit me", new: "edit me" + n }, ctx)
    : await fileWrite.run({ path, content: `write ${n}\n` }, ctx);
  return typeof result !== "string" && result.ok === false;
}

const started = Date.now();
const first = await signature();
let writes = 0, refused = 0, landed = 0;
while (writes < Number(most) && Date.now() - started < Number(maxMs) && landed === 0) {
  const batch = Array.from({ length: Number(atOnce) }, (_, k) => writes + k);
  writes += batch.length;
  for (const wasRefused of await Promise.all(batch.map(attempt))) if (wasRefused) refused++;
  // Only the control stops at the first landing; the tools' run checks the whole tree at the end.
  if (mode === "path-check" && await signature() !== first) landed++;
}
const method = mode === "path-check" ? "path" : await confinedWriteMethod();
console.log(JSON.stringify({ writes, refused, landed, ms: Date.now() - started, method }));
