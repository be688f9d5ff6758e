/**
 * The edit tools' write as svc's own permission set runs it (in bubblewrap): the target found by
 * writeTarget, written with writeOptions through writeFileConfined. A final link inside the
 * worktree is followed and kept; one leading out is refused and nothing outside changes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sandboxKind } from "../../../src/sandbox/probe.ts";
import { writeFileConfined } from "../../../src/tool/confined_write.ts";
import { writeOptions, writeTarget } from "../src/common.ts";
import { context, names, worktree } from "./_context.ts";

const kind = Deno.build.os === "linux" ? await sandboxKind() : undefined;
const skipped = kind?.ok && kind.kind === "bubblewrap"
  ? undefined
  : `bubblewrap cannot run here: ${kind?.ok === false ? kind.reason : "not Linux"}`;
if (skipped) console.warn(`bubblewrap_write: skipped, ${skipped}`);

/** The tools' write of `path` in the worktree, forced through bubblewrap: "written" or the error. */
async function toolWrite(root: string, path: string, text: string): Promise<string> {
  try {
    const target = await writeTarget(join(root, path));
    await writeFileConfined(target, text, { ...writeOptions(context(root)), via: "bubblewrap" });
    return "written";
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

Deno.test({
  name: "the tools' bubblewrap write follows a final link inside the worktree and keeps it",
  ignore: skipped !== undefined,
  async fn() {
    await using w = await worktree({ "src/real.txt": "old\n" });
    await Deno.chmod(w.path("src/real.txt"), 0o640);
    await Deno.symlink("src/real.txt", w.path("link.txt"));
    assert.equal(await toolWrite(w.root, "link.txt", "new\n"), "written");
    assert.deepEqual(
      [
        await w.read("src/real.txt"),
        await Deno.readLink(w.path("link.txt")),
        (await Deno.stat(w.path("src/real.txt"))).mode! & 0o777,
        await names(w.path("src")),
      ],
      ["new\n", "src/real.txt", 0o640, ["real.txt"]],
    );
  },
});

Deno.test({
  name: "the tools' bubblewrap write refuses a final link or a folder leading out",
  ignore: skipped !== undefined,
  async fn() {
    await using w = await worktree();
    const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-outside-" }));
    try {
      await Deno.writeTextFile(join(outside, "f.txt"), "outside\n");
      await Deno.symlink(join(outside, "f.txt"), w.path("to_file"));
      await Deno.symlink(join(outside, "new.txt"), w.path("dangling"));
      await Deno.symlink(outside, w.path("out"));
      const results = [
        await toolWrite(w.root, "to_file", "x"),
        await toolWrite(w.root, "dangling", "x"),
        await toolWrite(w.root, "out/sub/f.txt", "x"),
      ];
      for (const result of results) assert.match(result, /^OutsideRootError: .* leads outside /);
      assert.deepEqual(await names(outside), ["f.txt"]);
      assert.equal(await Deno.readTextFile(join(outside, "f.txt")), "outside\n");
      assert.deepEqual(await names(w.root), ["dangling", "out", "to_file"]);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
});
