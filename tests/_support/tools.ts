/**
 * External programs some tests run (git, ripgrep, python3, npm, ...). A test that needs one is
 * named `... (needs <program>)` and declared `Deno.test(name, needs("git"), fn)`: when the program
 * is not on PATH it is reported as ignored, never failed and never passed without asserting.
 */
import { join } from "node:path";

const found = new Map<string, boolean>();

/** True when `program` is an executable file in one of the PATH folders. */
export function onPath(program: string): boolean {
  let known = found.get(program);
  if (known === undefined) {
    const dirs = (Deno.env.get("PATH") ?? "").split(":").filter(Boolean);
    known = dirs.some((dir) => {
      try {
        const info = Deno.statSync(join(dir, program));
        return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
      } catch {
        return false;
      }
    });
    found.set(program, known);
  }
  return known;
}

/** Test options that ignore the test unless every one of `programs` is on PATH. */
export function needs(...programs: string[]): { ignore: boolean } {
  return { ignore: !programs.every(onPath) };
}
