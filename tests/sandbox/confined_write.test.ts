/**
 * The bubblewrap confined write (src/sandbox/confined_write.ts): writeFileAtomic's guarantees
 * (kept and new modes, parents, atomic replace, no temp file left) inside a namespace where only
 * the root is writable, so a folder leading outside fails with OutsideRootError.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { modeSteps, writeInSandbox } from "../../src/sandbox/confined_write.ts";
import { sandboxKind } from "../../src/sandbox/probe.ts";
import { writeFileConfined } from "../../src/tool/confined_write.ts";
import { OutsideRootError } from "../../src/util/outside_root_error.ts";

const kind = Deno.build.os === "linux" ? await sandboxKind() : undefined;
const program = kind?.ok && kind.kind === "bubblewrap" ? kind.program : undefined;
const skipped = program
  ? undefined
  : kind?.ok === false
  ? `bubblewrap cannot run: ${kind.reason}`
  : "bubblewrap is Linux only";
if (skipped) console.warn(`confined_write: bubblewrap tests skipped, ${skipped}`);

/** A root and a folder outside it, removed on dispose. */
async function folders() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc_root_" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc_outside_" }));
  await Deno.writeTextFile(join(outside, "f.txt"), "outside\n");
  return {
    root,
    outside,
    write: (path: string, data: string, options: Record<string, unknown> = {}) =>
      writeInSandbox(join(root, path), data, { root, program: program!, ...options }),
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

/** Every entry under `dir` (links as `-> target`, files with contents), sorted. */
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

const bits = async (path: string) => (await Deno.stat(path)).mode! & 0o7777;

/** The umask this process's children start with (Deno reads it only with `--allow-sys`). */
async function umask(): Promise<number> {
  const out = await new Deno.Command("/bin/sh", { args: ["-c", "umask"] }).output();
  return parseInt(new TextDecoder().decode(out.stdout).trim(), 8);
}

/** The error's class and message, or "written". */
async function outcome(write: Promise<void>): Promise<string> {
  try {
    await write;
    return "written";
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

Deno.test("modeSteps sets a mode by the umask alone unless it needs x or special bits", () => {
  assert.deepEqual(
    [
      modeSteps(0o644, 0o666),
      modeSteps(0o751, 0o666),
      modeSteps(0o4755, 0o666),
      modeSteps(undefined, 0o666),
      modeSteps(undefined, 0o644),
      modeSteps(undefined, 0o600),
      modeSteps(undefined, 0o755),
    ],
    [
      ["133", ""],
      ["077", "=751"],
      ["077", "=4755"],
      ["", ""],
      ["g-w,o-w", ""],
      ["g-rw,o-rw", ""],
      ["077", "&755"],
    ],
  );
});

Deno.test({
  name: "a bubblewrap write keeps an existing file's mode exactly and leaves no temp file",
  ignore: skipped !== undefined,
  async fn() {
    await using f = await folders();
    const modes: string[] = [];
    for (const mode of [0o751, 0o4755, 0o600, 0o664]) {
      await Deno.writeTextFile(join(f.root, "run.sh"), "old");
      await Deno.chmod(join(f.root, "run.sh"), mode);
      await f.write("run.sh", `new ${mode.toString(8)}`, { keepMode: true, mode: 0o666 });
      modes.push((await bits(join(f.root, "run.sh"))).toString(8));
    }
    assert.deepEqual(modes, ["751", "4755", "600", "664"]);
    assert.deepEqual(await tree(f.root), ["run.sh: new 664"]);
  },
});

Deno.test({
  name: "a bubblewrap write gives a new file its mode narrowed by the umask",
  ignore: skipped !== undefined,
  async fn() {
    await using f = await folders();
    const mask = await umask();
    const made: number[] = [];
    for (const [i, mode] of [0o666, 0o644, 0o600, 0o755, undefined].entries()) {
      await f.write(`n${i}`, "x", { keepMode: true, ...(mode === undefined ? {} : { mode }) });
      made.push(await bits(join(f.root, `n${i}`)));
    }
    assert.deepEqual(made, [0o666, 0o644, 0o600, 0o755, 0o644].map((mode) => mode & ~mask));
  },
});

Deno.test({
  name: "a bubblewrap write creates missing parents only when asked",
  ignore: skipped !== undefined,
  async fn() {
    await using f = await folders();
    assert.match(await outcome(f.write("a/b/c.txt", "x")), /^NotFound: .*No such file/);
    assert.deepEqual(await tree(f.root), []);
    assert.equal(await outcome(f.write("a/b/c.txt", "deep\n", { parents: true })), "written");
    assert.deepEqual(await tree(f.root), ["a/", "a/b/", "a/b/c.txt: deep\n"]);
  },
});

Deno.test({
  name: "a bubblewrap write replaces the file atomically and goes through links inside the root",
  ignore: skipped !== undefined,
  async fn() {
    await using f = await folders();
    await Deno.mkdir(join(f.root, "real"));
    await Deno.symlink("real", join(f.root, "in"));
    await Deno.writeTextFile(join(f.root, "real/f.txt"), "old\n");
    const bytes = new Uint8Array(300_000).map((_, i) => 97 + (i % 26));
    await writeInSandbox(join(f.root, "in/f.txt"), bytes, { root: f.root, program: program! });
    assert.deepEqual(await Deno.readFile(join(f.root, "real/f.txt")), bytes);
    assert.deepEqual((await tree(f.root)).filter((line) => !line.startsWith("real/f.txt")), [
      "in -> real",
      "real/",
    ]);
  },
});

Deno.test({
  name: "a bubblewrap write refuses a folder leading outside, even with no check by path",
  ignore: skipped !== undefined,
  async fn() {
    await using f = await folders();
    await Deno.symlink(f.outside, join(f.root, "out"));
    const refused = `OutsideRootError: ${join(f.root, "out")} leads outside ${f.root} through ` +
      "a symbolic link; nothing was written";
    const unchecked = { checkPath: false, parents: true };
    assert.deepEqual(
      [
        await outcome(f.write("out/f.txt", "x")),
        await outcome(f.write("out/f.txt", "x", unchecked)),
        await outcome(f.write("out/new.txt", "x", unchecked)),
        await outcome(f.write("out/sub/new.txt", "x", unchecked)),
      ],
      [refused, refused, refused, refused.replace("/out ", "/out/sub ")],
    );
    const err = await writeInSandbox(join(f.root, "out/f.txt"), "x", {
      root: f.root,
      program: program!,
      checkPath: false,
    }).catch((e) => e);
    assert.ok(err instanceof OutsideRootError);
    assert.deepEqual(await tree(f.outside), ["f.txt: outside\n"]);
    assert.deepEqual(await tree(f.root), [`out -> ${f.outside}`]);
  },
});

Deno.test({
  name: "a failed bubblewrap write leaves no temp file and names the error as Deno would",
  ignore: skipped !== undefined,
  async fn() {
    await using f = await folders();
    await Deno.mkdir(join(f.root, "dir"));
    await Deno.writeTextFile(join(f.root, "file"), "x");
    assert.match(await outcome(f.write("dir", "x")), /^IsADirectory: /);
    assert.match(await outcome(f.write("file/x", "x")), /^NotADirectory: /);
    assert.match(await outcome(f.write("file/x", "x", { parents: true })), /^NotADirectory: /);
    assert.deepEqual(await tree(f.root), ["dir/", "file: x"]);
  },
});

Deno.test({
  name: "writeFileConfined through bubblewrap keeps writeFileAtomic's results",
  ignore: skipped !== undefined,
  async fn() {
    await using f = await folders();
    await Deno.writeTextFile(join(f.root, "run.sh"), "old");
    await Deno.chmod(join(f.root, "run.sh"), 0o751);
    const options = { confineTo: f.root, keepMode: true, mode: 0o666, parents: true };
    await writeFileConfined(join(f.root, "run.sh"), "new", { ...options, via: "bubblewrap" });
    await writeFileConfined(join(f.root, "a/b.txt"), "b", { ...options, via: "bubblewrap" });
    assert.deepEqual(
      [await tree(f.root), await bits(join(f.root, "run.sh"))],
      [["a/", "a/b.txt: b", "run.sh: new"], 0o751],
    );
  },
});
