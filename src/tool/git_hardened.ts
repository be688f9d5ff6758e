/**
 * Runs git without a shell, with every repository setting that can start a program neutralised:
 * pager, fsmonitor, hooks, external diff, ssh, credential helpers, gpg, attribute files and the
 * clean/smudge/process filters of every configured driver. The git dir and work tree are the
 * caller's, never the repository's `core.worktree`. The environment carries no secrets and no
 * GIT_* variables of the host. The git tools (plugins/svc-core-git) and the turn checkpoints'
 * snapshots (src/session/checkpoint_git.ts) run git through here.
 */
import { type ProcessResult, runProcess } from "./process.ts";
import { scrubEnv } from "./shell.ts";

/** Where git runs: `cwd`, with `--git-dir=gitDir` and `--work-tree=workTree`. */
export interface GitPlace {
  cwd: string;
  gitDir: string;
  workTree: string;
}

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
function repoOptions(repo: GitPlace): string[] {
  return [`--git-dir=${repo.gitDir}`, `--work-tree=${repo.workTree}`];
}

/** Runs `git <repository> <hardening> <args>` in `repo.cwd`; filter drivers are blanked first. */
export async function runGit(
  args: string[],
  repo: GitPlace,
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

/**
 * The bytes of the blob `spec` (`<commit>:<path>`), read with the same hardening (`cat-file blob`
 * applies no filter), or null when it is missing or larger than `maxBytes`.
 */
export async function gitBlob(
  spec: string,
  place: GitPlace,
  options: { maxBytes: number },
): Promise<Uint8Array | null> {
  const fixed = [`--git-dir=${place.gitDir}`, `--work-tree=${place.workTree}`, ...GIT_HARDENING];
  const size = await runProcess("git", [...fixed, "cat-file", "-s", spec], {
    cwd: place.cwd,
    env: gitEnv(),
    timeoutMs: GIT_TIMEOUT_MS,
  });
  if (size.code !== 0 || Number(size.stdout.trim()) > options.maxBytes) return null;
  const out = await new Deno.Command("git", {
    args: [...fixed, "cat-file", "blob", spec],
    cwd: place.cwd,
    env: gitEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  return out.success ? out.stdout : null;
}
