/**
 * writeFileAtomic with `confineTo`: nothing outside the root is created or changed, whether a
 * symbolic link leads out from the start or is swapped in while the write runs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileAtomic } from "../../src/util/atomic.ts";
import { startSwapRacer } from "../_support/swap_racer.ts";

/** Two temp folders, a root and one outside it, removed on dispose. */
async function folders() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc_root_" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc_outside_" }));
  await Deno.writeTextFile(join(outside, "f.txt"), "outside\n");
  return {
    root,
    outside,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

/** Every entry under `dir` with file contents, sorted. */
async function tree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const rel = join(prefix, entry.name);
    if (entry.isDirectory) out.push(`${rel}/`, ...await tree(dir, rel));
    else if (entry.isSymlink) out.push(`${rel} -> ${await Deno.readLink(join(dir, rel))}`);
    else out.push(`${rel}: ${await Deno.readTextFile(join(dir, rel))}`);
  }
  return out.sort();
}

/** The error's class and message, or "written". */
async function attempt(path: string, root: string): Promise<string> {
  try {
    await writeFileAtomic(path, "new\n", { confineTo: root, parents: true });
    return "written";
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

Deno.test("writeFileAtomic with confineTo refuses folders outside and links leading out", async () => {
  await using f = await folders();
  const { root, outside } = f;
  await Deno.symlink(outside, join(root, "out"));
  await Deno.symlink(join(outside, "new"), join(root, "dangling"));
  await Deno.mkdir(join(root, "real"));
  await Deno.symlink("real", join(root, "in"));
  const refused = (dir: string, how = " through a symbolic link") =>
    `OutsideRootError: ${dir} leads outside ${root}${how}; nothing was written`;
  assert.deepEqual(
    [
      await attempt(join(root, "out/f.txt"), root),
      await attempt(join(root, "out/sub/x.txt"), root),
      await attempt(join(root, "dangling/x.txt"), root),
      await attempt(join(root, "../x.txt"), root),
      await attempt(join(root, "in/x.txt"), root),
      await attempt(join(root, "a/b/c.txt"), root),
    ],
    [
      refused(join(root, "out")),
      refused(join(root, "out/sub")),
      refused(join(root, "dangling")),
      refused(join(root, ".."), ""),
      "written",
      "written",
    ],
  );
  assert.deepEqual(await tree(outside), ["f.txt: outside\n"]);
  assert.deepEqual(await tree(join(root, "real")), ["x.txt: new\n"]);
  assert.deepEqual(await tree(join(root, "a")), ["b/", "b/c.txt: new\n"]);
});

Deno.test("writeFileAtomic with confineTo keeps a file's mode and leaves no temp file", async () => {
  await using f = await folders();
  const path = join(f.root, "run.sh");
  await Deno.writeTextFile(path, "old");
  await Deno.chmod(path, 0o751);
  await writeFileAtomic(path, "new", { confineTo: f.root, keepMode: true, mode: 0o666 });
  assert.deepEqual(
    [await tree(f.root), (await Deno.stat(path)).mode! & 0o777],
    [["run.sh: new"], 0o751],
  );
});

Deno.test({
  name: "writeFileAtomic with confineTo writes nothing outside while a folder and a link swap",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using f = await folders();
    const { root, outside } = f;
    await Deno.mkdir(join(root, "d"));
    await Deno.writeTextFile(join(root, "d/f.txt"), "inside\n");
    await Deno.symlink(outside, join(root, "swap"));
    const before = await tree(outside);
    const racer = await startSwapRacer(join(root, "d"), join(root, "swap"));
    let writes = 0, refused = 0, swaps = 0;
    const deadline = Date.now() + 15_000;
    try {
      for (; writes < 2000 && Date.now() < deadline; writes++) {
        const name = ["f.txt", `w${writes}.txt`, `s${writes}/w.txt`][writes % 3];
        const result = await attempt(join(root, "d", name), root);
        if (result.startsWith("OutsideRootError")) refused++;
        else assert.equal(result, "written");
      }
    } finally {
      swaps = await racer.stop();
    }
    assert.deepEqual(await tree(outside), before, `${writes} writes, ${swaps} swaps`);
    assert.ok(swaps > 0 && refused > 0, `the race never hit: ${swaps} swaps, ${refused} refused`);
  },
});
