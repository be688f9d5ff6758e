/**
 * The write race under the installed command's permissions (SVC_PERMISSIONS, no -A: Deno refuses
 * /proc/self/fd there, so a confined write cannot check its folder through a descriptor). A
 * second process swaps a folder of the worktree with a symbolic link to a folder outside; the
 * edit tools, writing in bubblewrap, must land nothing outside in 1,000 attempts. The same race
 * against the check by path they used before shows the harness catches a write that lands.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SVC_PERMISSIONS } from "../../../src/launch/svc_command.ts";
import { sandboxKind } from "../../../src/sandbox/probe.ts";
import { startSwapRacer } from "../../../tests/_support/swap_racer.ts";
import { worktree } from "./_context.ts";

const ATTEMPTS = 1000;
const AT_ONCE = 8;

const kind = Deno.build.os === "linux" ? await sandboxKind() : undefined;
const skipped = Deno.build.os !== "linux"
  ? "the swap racer needs Linux"
  : kind?.ok
  ? kind.kind === "bubblewrap" ? undefined : `no bubblewrap (${kind.kind})`
  : `bubblewrap cannot run: ${kind?.reason}`;
if (skipped) console.warn(`file_write_race_installed: skipped, ${skipped}`);

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

interface Run {
  writes: number;
  refused: number;
  landed: number;
  ms: number;
  method: string;
  swaps: number;
  outside: string[];
  before: string[];
}

/** Runs the writer child (`mode`) with svc's permissions against a racing swap of `d`. */
async function race(mode: "tools" | "path-check", maxMs: number): Promise<Run> {
  // The racer rests with the pair exchanged once: `d` is the folder then, the link only while a
  // burst of swaps runs, so most writes pass the check by path and meet the swap later.
  await using w = await worktree({ "swap/f.txt": "inside 0\n", "swap/e.txt": "edit me 0\n" });
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-outside-" }));
  try {
    await Deno.writeTextFile(join(outside, "f.txt"), "outside f\n");
    await Deno.writeTextFile(join(outside, "e.txt"), "edit me 0\n");
    await Deno.symlink(outside, w.path("d"));
    const before = await tree(outside);
    const child = new URL("./_race_writer_child.ts", import.meta.url).pathname;
    const args = [mode, w.root, outside, String(ATTEMPTS), String(AT_ONCE), String(maxMs)];
    // Bubblewrap writes take milliseconds: a burst of swaps each millisecond meets them without
    // spinning a core for the whole run (the suite shares two).
    const racer = await startSwapRacer(w.path("d"), w.path("swap"), {
      restMs: mode === "tools" ? 1 : 0,
    });
    let output: Deno.CommandOutput, swaps: number;
    try {
      output = await new Deno.Command(Deno.execPath(), {
        args: ["run", ...SVC_PERMISSIONS, "--quiet", child, ...args],
        cwd: new URL("../../../", import.meta.url).pathname,
        stdin: "null",
        signal: AbortSignal.timeout(maxMs + 20_000),
      }).output();
    } finally {
      swaps = await racer.stop();
    }
    const said = new TextDecoder().decode(output.stdout).trim();
    assert.ok(output.success, `${said}\n${new TextDecoder().decode(output.stderr)}`);
    return { ...JSON.parse(said), swaps, outside: await tree(outside), before };
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
}

Deno.test({
  name: "under svc's permissions the old check by path lets a swapped link land writes outside",
  ignore: skipped !== undefined,
  async fn() {
    const run = await race("path-check", 8_000);
    console.log(`path check: ${JSON.stringify({ ...run, outside: undefined, before: undefined })}`);
    assert.ok(run.swaps > 0, "the racer never swapped");
    assert.notDeepEqual(run.outside, run.before, `nothing landed in ${run.writes} writes`);
  },
});

Deno.test({
  name:
    "under svc's permissions file_write and file_edit land nothing outside in 1,000 raced writes",
  ignore: skipped !== undefined,
  async fn() {
    const run = await race("tools", 30_000);
    console.log(`bubblewrap: ${JSON.stringify({ ...run, outside: undefined, before: undefined })}`);
    assert.equal(run.method, "bubblewrap");
    assert.deepEqual(run.outside, run.before, `${run.writes} writes, ${run.swaps} swaps`);
    assert.equal(run.writes, ATTEMPTS);
    assert.ok(run.refused > 0, `the race never hit: ${run.swaps} swaps, ${run.refused} refused`);
  },
});
