/** The in-process tree walk behind glob and grep when ripgrep is not available. */
import { join } from "../../../src/plugin/api.ts";
import type picomatchType from "./picomatch.d.ts";
import { NOISE_DIRS } from "./common.ts";

let picomatchModule: typeof picomatchType | undefined;

/** picomatch is CommonJS; it is loaded on the first glob, not when the plugin loads. */
async function picomatch(): Promise<typeof picomatchType> {
  if (!picomatchModule) {
    picomatchModule = (await import("picomatch")).default as typeof picomatchType;
  }
  return picomatchModule;
}

/**
 * Matcher for a glob over relative posix paths, with ripgrep's `--glob` rules: a pattern without
 * `/` matches the last path segment at any depth, one with `/` matches from the root; dotfiles
 * are not special.
 */
export async function pathMatcher(pattern: string): Promise<(path: string) => boolean> {
  return (await picomatch())(pattern, { dot: true, basename: !pattern.includes("/") });
}

/** The literal directory prefix of a glob (`src` for `src/**\/*.ts`, empty for `*.ts`). */
export async function scanBase(pattern: string): Promise<string> {
  return (await picomatch()).scan(pattern).base;
}

/**
 * Relative posix paths of the regular files under `root`, as ripgrep lists them with
 * `--hidden --no-ignore`: noise directories and symbolic links are skipped, unreadable
 * directories are passed over silently. Order is unspecified.
 */
export async function walkFiles(root: string, signal: AbortSignal): Promise<string[]> {
  const files: string[] = [];
  const pending: string[] = [""];
  const slice = new TimeSlice(signal);
  while (pending.length > 0) {
    await slice.tick();
    const rel = pending.pop()!;
    try {
      // Sync reads in short slices: several times faster than async ops, still cancellable.
      for (const entry of Deno.readDirSync(rel ? join(root, rel) : root)) {
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isFile) files.push(path);
        else if (entry.isDirectory && !NOISE_DIRS.has(entry.name)) pending.push(path);
      }
    } catch {
      // unreadable or vanished directory: ripgrep with --no-messages skips it too
    }
  }
  return files;
}

/** Lets blocking work yield to the event loop every few milliseconds and honour `signal`. */
export class TimeSlice {
  private since = performance.now();
  constructor(private readonly signal: AbortSignal, private readonly ms = 20) {}

  /** Yields when the current slice is used up; throws when the signal is aborted. */
  async tick(): Promise<void> {
    this.signal.throwIfAborted();
    if (performance.now() - this.since < this.ms) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.signal.throwIfAborted();
    this.since = performance.now();
  }
}

/** Every ancestor directory of `files` (relative posix paths), excluding the root itself. */
export function parentDirs(files: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const file of files) {
    for (let i = file.lastIndexOf("/"); i > 0; i = file.lastIndexOf("/", i - 1)) {
      const dir = file.slice(0, i);
      if (dirs.has(dir)) break;
      dirs.add(dir);
    }
  }
  return dirs;
}
