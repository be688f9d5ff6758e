/**
 * How the git tools run git: `runGit` (src/tool/git_hardened.ts, shared with the turn checkpoints)
 * neutralises every repository setting that can start a program, with the git dir and work tree
 * svc found (git_repo.ts), never the repository's `core.worktree`; `gitOutput` is its result as the
 * model sees it.
 */
import type { ProcessResult } from "../../../src/tool/process.ts";

export { GIT_HARDENING, gitEnv, runGit } from "../../../src/tool/git_hardened.ts";

/** The model-visible text of a git run: stdout on success, the failure and stderr otherwise. */
export function gitOutput(label: string, result: ProcessResult): string | {
  content: string;
  ok: false;
} {
  if (result.timedOut || result.cancelled || result.code !== 0) {
    const why = result.timedOut
      ? "timed out"
      : result.cancelled
      ? "cancelled"
      : `exit code ${result.code}`;
    const detail = [result.stderr.trim(), result.stdout.trim()].filter(Boolean).join("\n");
    return { content: `${label} failed (${why})${detail ? "\n" + detail : ""}`, ok: false };
  }
  const out = result.stdout.replace(/\n$/, "");
  const err = result.stderr.trim();
  return (out || "(no output)") + (err ? `\n${err}` : "");
}
