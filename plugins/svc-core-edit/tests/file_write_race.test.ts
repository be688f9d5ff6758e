/**
 * A second process exchanges a folder of the worktree with a symbolic link to a folder outside
 * it, again and again, while file_write and file_edit write into that folder. Every write must
 * land inside the worktree or be refused: nothing outside may be created or changed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileEdit } from "../src/file_edit.ts";
import { fileWrite } from "../src/file_write.ts";
import { startSwapRacer } from "../../../tests/_support/swap_racer.ts";
import { context, worktree } from "./_context.ts";

const MAX_WRITES = 2000;
const MAX_MS = 15_000;

/** Every file and folder under `dir`, relative and sorted, with file contents. */
async function tree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const rel = join(prefix, entry.name);
    if (entry.isDirectory) out.push(`${rel}/`, ...await tree(dir, rel));
    else out.push(`${rel}: ${await Deno.readTextFile(join(dir, rel)).catch(() => "?")}`);
  }
  return out.sort();
}

/** What a write outside would change: the names in `dir` and the two files' contents. */
async function signature(dir: string): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  const read = (name: string) => Deno.readTextFile(join(dir, name)).catch(() => "?");
  return `${names.sort().join("/")}\n${await read("f.txt")}${await read("e.txt")}`;
}

Deno.test({
  name: "file_write and file_edit never land outside while a folder and an outside link swap",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using w = await worktree({ "d/f.txt": "inside 0\n", "d/e.txt": "edit me 0\n" });
    const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-outside-" }));
    try {
      await Deno.writeTextFile(join(outside, "f.txt"), "outside f\n");
      await Deno.writeTextFile(join(outside, "e.txt"), "edit me 0\n");
      await Deno.symlink(outside, w.path("swap"));
      const before = await tree(outside);
      const ctx = context(w.root);
      const racer = await startSwapRacer(w.path("d"), w.path("swap"));
      let writes = 0, refused = 0, swaps = 0, landed = 0;
      let last = await signature(outside);
      const deadline = Date.now() + MAX_MS;
      try {
        for (; writes < MAX_WRITES && Date.now() < deadline; writes++) {
          const n = writes;
          const result = n % 4 === 3
            ? await fileEdit.run({ path: "d/e.txt", old: "edit me", new: "edit me" + n }, ctx)
            : await fileWrite.run({
              path: ["d/f.txt", `d/w${n}.txt`, `d/s${n}/w.txt`][n % 4],
              content: `write ${n}\n`,
            }, ctx);
          if (typeof result !== "string" && result.ok === false) refused++;
          const now = await signature(outside);
          if (now !== last) landed++;
          last = now;
        }
      } finally {
        swaps = await racer.stop();
      }
      assert.deepEqual(
        await tree(outside),
        before,
        `${landed} of ${writes} writes created or changed something outside (${swaps} swaps)`,
      );
      assert.ok(swaps > 0 && refused > 0, `the race never hit: ${swaps} swaps, ${refused} refused`);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
});
