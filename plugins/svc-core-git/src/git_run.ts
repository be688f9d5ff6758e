/**
 * Runs git without a shell, with every repository setting that can start a program neutralised:
 * pager, fsmonitor, hooks, external diff, ssh, credential helpers, gpg, attribute files and the
 * clean/smudge/process filters of every configured driver. The git dir and work tree are the ones
 * svc found (git_repo.ts), never the repository's `core.worktree`. The environment carries no
 * secrets and no GIT_* variables of the host.
 */
import { type ProcessResult, runProcess } from "../../../src/tool/process.ts";
import { scrubEnv } from "../../../src/tool/shell.ts";
import type { GitRepo } from "./git_repo.ts";

/** Global options and `-c` overrides put before every git subcommand. */
export const GIT_HARDENING = [
  "--no-pager",
  "--no-optional-locks",
  ...[
    "core.pager=cat",
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.attributesFile=/dev/null",
    "core.sshCommand=",
    "core.askPass=",
    "credential.helper=",
    "diff.external=",
    "protocol.allow=never",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "log.showSignature=false",
    "commit.gpgSign=false",
    "diff.ignoreSubmodules=all",
    "status.submoduleSummary=false",
    "submodule.recurse=false",
    "gc.auto=0",
    "maintenance.auto=false",
  ].flatMap((setting) => ["-c", setting]),
];

const GIT_TIMEOUT_MS = 60_000;

/** The environment of git: scrubbed, without host GIT_* variables, no pager or prompt. */
export function gitEnv(): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(scrubEnv()).filter(([name]) =>
      !name.startsWith("GIT_") && name !== "SSH_ASKPASS" && name !== "PAGER"
    ),
  );
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_NO_LAZY_FETCH: "1",
    GIT_PROTOCOL_FROM_USER: "0",
  };
}

/** The options fixing the repository: they override `core.worktree` and any discovery. */
function repoOptions(repo: GitRepo): string[] {
  return [`--git-dir=${repo.gitDir}`, `--work-tree=${repo.workTree}`];
}

/** Runs `git <repository> <hardening> <args>` in `repo.cwd`; filter drivers are blanked first. */
export async function runGit(
  args: string[],
  repo: GitRepo,
  signal?: AbortSignal,
): Promise<ProcessResult> {
  const env = gitEnv();
  const options = { cwd: repo.cwd, env, timeoutMs: GIT_TIMEOUT_MS, signal };
  const fixed = [...repoOptions(repo), ...GIT_HARDENING];
  const listed = await runProcess(
    "git",
    [...fixed, "config", "-z", "--name-only", "--get-regexp", "^filter\\."],
    options,
  );
  if (listed.code !== 0 && listed.code !== 1) return listed;
  const drivers = new Set(
    listed.stdout.split("\0").filter(Boolean).map((key) => key.slice(7, key.lastIndexOf("."))),
  );
  // Passed through GIT_CONFIG_* because a driver name may itself contain "=".
  const blanks = [...drivers].flatMap((d) =>
    ["clean", "smudge", "process", "required"].map((
      k,
    ) => [`filter.${d}.${k}`, k === "required" ? "false" : ""])
  );
  blanks.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  if (blanks.length) env.GIT_CONFIG_COUNT = String(blanks.length);
  return await runProcess("git", [...fixed, ...args], options);
}

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
