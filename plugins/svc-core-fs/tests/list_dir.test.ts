import assert from "node:assert/strict";
import { join } from "node:path";
import { listDir } from "../src/list_dir.ts";
import { context, worktree } from "./_context.ts";
import { runSandboxed } from "./_sandboxed.ts";

const tree = {
  "README.md": "# hi\n",
  "src/main.ts": "x".repeat(2048),
  "src/util/a.ts": "a",
  "src/util/deep/z.ts": "z",
  "node_modules/pkg/index.js": "module.exports = 1;",
  ".git/HEAD": "ref: refs/heads/main\n",
  "Zed.txt": "",
};

Deno.test("list_dir lists sorted entries with / on directories and file sizes", async () => {
  await using w = await worktree(tree);
  await Deno.symlink("src/main.ts", join(w.root, "link.ts"));
  assert.equal(
    await listDir.run({}, context(w.root)),
    [
      "./ (6 entries)",
      ".git/",
      "README.md (5 B)",
      "Zed.txt (0 B)",
      "link.ts -> src/main.ts",
      "node_modules/",
      "src/",
    ].join("\n"),
  );
});

Deno.test("list_dir with depth > 1 renders an indented tree and leaves noise dirs closed", async () => {
  await using w = await worktree(tree);
  assert.equal(
    await listDir.run({ path: ".", depth: 3 }, context(w.root)),
    [
      "./ (9 entries)",
      ".git/ [not expanded]",
      "README.md (5 B)",
      "Zed.txt (0 B)",
      "node_modules/ [not expanded]",
      "src/",
      "  main.ts (2.0 KB)",
      "  util/",
      "    a.ts (1 B)",
      "    deep/",
    ].join("\n"),
  );
});

Deno.test("list_dir caps entries at list_dir_max_entries with a marker giving the total", async () => {
  await using w = await worktree(tree);
  assert.equal(
    await listDir.run({ depth: 4 }, context(w.root, { list_dir_max_entries: 6 })),
    [
      "./ (10 entries)",
      ".git/ [not expanded]",
      "README.md (5 B)",
      "Zed.txt (0 B)",
      "node_modules/ [not expanded]",
      "src/",
      "  main.ts (2.0 KB)",
      "[... showing 6 of 10 entries; list a subdirectory or use a smaller depth]",
    ].join("\n"),
  );
});

Deno.test("list_dir with list_dir_max_entries 0 lists every entry", async () => {
  const files = Object.fromEntries(
    Array.from({ length: 450 }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, "x"]),
  );
  await using w = await worktree(files);
  const out = await listDir.run({}, context(w.root, { list_dir_max_entries: 0 })) as string;
  assert.equal(out.split("\n").length, 451);
  const capped = await listDir.run({}, context(w.root)) as string;
  assert.equal(capped.split("\n").length, 202);
  assert.equal(
    capped.split("\n").at(-1),
    "[... showing 200 of 450 entries; list a subdirectory or use a smaller depth]",
  );
});

Deno.test("list_dir of a subdirectory and of an empty directory", async () => {
  await using w = await worktree(tree);
  await Deno.mkdir(join(w.root, "empty"));
  assert.equal(
    await listDir.run({ path: "src/util" }, context(w.root)),
    "src/util/ (2 entries)\na.ts (1 B)\ndeep/",
  );
  assert.equal(await listDir.run({ path: "empty" }, context(w.root)), "empty/ (empty)");
});

Deno.test("list_dir shows a symlink loop as links and does not follow it", async () => {
  await using w = await worktree({ "d/a.txt": "a" });
  await Deno.symlink("..", join(w.root, "d", "up"));
  await Deno.symlink("loop2", join(w.root, "d", "loop1"));
  await Deno.symlink("loop1", join(w.root, "d", "loop2"));
  assert.equal(
    await listDir.run({ depth: 12 }, context(w.root)),
    "./ (5 entries)\nd/\n  a.txt (1 B)\n  loop1 -> loop2\n  loop2 -> loop1\n  up -> ..",
  );
});

Deno.test("list_dir reports a file, a missing path and a NUL byte as errors", async () => {
  await using w = await worktree(tree);
  const ctx = context(w.root);
  assert.deepEqual(await listDir.run({ path: "README.md" }, ctx), {
    content: "Not a directory: README.md; use file_read",
    ok: false,
  });
  assert.deepEqual(await listDir.run({ path: "gone" }, ctx), {
    content: "Path not found: gone",
    ok: false,
  });
  assert.deepEqual(await listDir.run({ path: "\0" }, ctx), {
    content: "Path contains a NUL byte",
    ok: false,
  });
});

Deno.test("list_dir marks an unreadable subdirectory and reports an unreadable root", async () => {
  await using w = await worktree({ "ok/a.txt": "a", "locked/secret.txt": "s" });
  const locked = join(w.root, "locked");
  assert.equal(
    await runSandboxed("list_dir", w.root, { depth: 2 }, locked),
    "./ (3 entries)\nlocked/ [unreadable]\nok/\n  a.txt (1 B)",
  );
  assert.deepEqual(await runSandboxed("list_dir", w.root, { path: "locked" }, locked), {
    content: "Permission denied: locked",
    ok: false,
  });
});

Deno.test({
  name: "list_dir marks a chmod 000 directory unreadable (needs a user other than root, whom " +
    "chmod does not stop)",
  ignore: Deno.uid() === 0,
  fn: async () => {
    await using w = await worktree({ "locked/secret.txt": "s" });
    await Deno.chmod(join(w.root, "locked"), 0o000);
    try {
      assert.equal(
        await listDir.run({ depth: 2 }, context(w.root)),
        "./ (1 entry)\nlocked/ [unreadable]",
      );
    } finally {
      await Deno.chmod(join(w.root, "locked"), 0o755);
    }
  },
});

Deno.test("list_dir stops expanding a huge tree and gives the total as a lower bound", async () => {
  await using w = await worktree();
  for (let d = 0; d < 25; d++) {
    const dir = join(w.root, `d${String(d).padStart(2, "0")}`);
    Deno.mkdirSync(dir);
    for (let f = 0; f < 1000; f++) Deno.writeFileSync(join(dir, `f${f}`), new Uint8Array());
  }
  const out = (await listDir.run({ depth: 2 }, context(w.root)) as string).split("\n");
  assert.equal(out[0], "./ (20025+ entries)");
  assert.equal(
    out.at(-1),
    "[... showing 200 of 20025+ entries; list a subdirectory or use a smaller depth]",
  );
});
