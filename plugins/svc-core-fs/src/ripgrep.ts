/** Runs ripgrep when it is installed; callers fall back to the in-process walk on null. */
import { NOISE_DIRS } from "./common.ts";

/** ripgrep flags shared by file listing and search: same file set as `walkFiles`. */
const BASE_ARGS = ["--no-config", "--hidden", "--no-ignore", "--no-messages", "--null"];
const NOISE_ARGS = [...NOISE_DIRS].flatMap((name) => ["--glob", `!${name}/`]);

let available: boolean | undefined;

/** Forces the in-process fallback (false) or re-enables detection (undefined); for tests. */
export function setRipgrepEnabled(enabled: false | undefined): void {
  available = enabled;
}

/** Outcome of one ripgrep run; null from `runRipgrep` means "not usable, fall back". */
export interface RipgrepRun {
  code: number;
  stderr: string;
}

/**
 * Runs `rg <shared flags> <args> <noise exclusions> -- .` in `cwd` (so `args` globs come first and
 * the noise exclusions win), feeding stdout to `onText` as it arrives. Returns null when ripgrep
 * is missing or may not be spawned.
 */
export async function runRipgrep(
  cwd: string,
  args: string[],
  { signal, onText }: { signal: AbortSignal; onText: (text: string) => void },
): Promise<RipgrepRun | null> {
  if (available === false) return null;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("rg", {
      args: [...BASE_ARGS, ...args, ...NOISE_ARGS, "--", "."],
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal,
    }).spawn();
  } catch (err) {
    if (signal.aborted) throw err;
    available = false;
    return null;
  }
  available = true;
  const stderr = new Response(child.stderr).text();
  for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) onText(text);
  const status = await child.status;
  signal.throwIfAborted();
  return { code: status.code, stderr: await stderr };
}

/** Relative posix paths of the files ripgrep lists under `root`, or null to fall back. */
export async function ripgrepFiles(root: string, signal: AbortSignal): Promise<string[] | null> {
  let buffer = "";
  const files: string[] = [];
  const run = await runRipgrep(root, ["--files"], {
    signal,
    onText: (text) => {
      const parts = (buffer + text).split("\0");
      buffer = parts.pop()!;
      for (const part of parts) files.push(part.startsWith("./") ? part.slice(2) : part);
    },
  });
  return run === null ? null : files;
}
