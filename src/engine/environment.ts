/**
 * The values of the environment block taken once per session (docs/prompt.md): the local date
 * and time zone, and the git repository's branch and changed-file count. They are stored in the
 * session (`environment`), so every turn of it, in this process or a later one, sends the same
 * block (a stable prefix for the backend's prompt cache); they are taken again only on a later
 * day, or when the git line is turned on after being off. The git state costs one hardened
 * `git status --porcelain=v1 -b` (src/tool/git_hardened.ts), bounded in time; a worktree in no
 * repository costs no process at all.
 */
import type { SessionLog } from "../session/log.ts";
import type { SessionEnvironment } from "../session/types.ts";
import { type GitPlace, runGit } from "../tool/git_hardened.ts";
import { dirname, join, resolve } from "../util/posix_path.ts";
import { type Clock, realClock } from "../util/time.ts";

/** `git status` of the environment block gives up after this long (a huge or slow repository). */
export const GIT_STATUS_TIMEOUT_MS = 1500;

/** The local date of `ms` (the process's time zone), as YYYY-MM-DD. */
export function localDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

const UTC_NAMES = /^(Etc\/)?(UTC|UCT|GMT|Universal|Zulu|Greenwich)(\+0|-0|0)?$/;

/**
 * The time zone's name and UTC offset at `ms`: `TZ`, else the zone /etc/localtime links to (Intl
 * would load ICU's data, 35-70 ms, on the first request's path), else the offset alone.
 */
export function timeZone(ms: number): string {
  const minutes = -new Date(ms).getTimezoneOffset();
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  const offset = `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${
    String(abs % 60).padStart(2, "0")
  }`;
  let name = Deno.env.get("TZ")?.replace(/^:/, "");
  if (!name) {
    try {
      name = Deno.readLinkSync("/etc/localtime").split("zoneinfo/")[1];
    } catch {
      // no /etc/localtime link: the offset alone
    }
  }
  if (minutes === 0 && (!name || UTC_NAMES.test(name))) return "UTC";
  return name && /^[A-Za-z0-9_+\-/]{1,64}$/.test(name) ? `${name}, ${offset}` : offset;
}

/**
 * The repository holding `worktree`: the nearest folder at or above it with a `.git` folder, or a
 * `.git` file naming the git dir (`git worktree add`, submodules). Found with lstat calls only.
 */
export function gitRepositoryOf(worktree: string): GitPlace | null {
  for (let dir = worktree;; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    try {
      const info = Deno.lstatSync(dotGit);
      if (info.isDirectory) return { cwd: worktree, gitDir: dotGit, workTree: dir };
      if (info.isFile && info.size < 4096) {
        const named = /^gitdir: (.+)$/m.exec(Deno.readTextFileSync(dotGit))?.[1]?.trim();
        if (named) return { cwd: worktree, gitDir: resolve(dir, named), workTree: dir };
      }
    } catch {
      // no .git here
    }
    if (dir === dirname(dir)) return null;
  }
}

/** A longer branch name is cut: it goes into the system prompt. */
const BRANCH_MAX = 100;

/** svc's own folder (sessions, checkpoints) is not a change of the project's. */
const SVC_FOLDER = /(^|\/)\.svc(\/|"?$)/;

/**
 * Branch and changed-file count from `git status --porcelain=v1 -b` output (untracked files
 * count, svc's `.svc` folder does not).
 */
export function parseGitStatus(stdout: string): { branch: string; changed: number } {
  const lines = stdout.split("\n").filter(Boolean);
  const head = lines[0]?.startsWith("## ") ? lines[0].slice(3) : "";
  let branch = head.split("...")[0].trim();
  const unborn = /^(?:No commits yet|Initial commit) on (.+)$/.exec(head);
  if (unborn) branch = `${unborn[1]} (no commits yet)`;
  else if (head.startsWith("HEAD (no branch)")) branch = "detached HEAD";
  const changed = lines.filter((line) =>
    !line.startsWith("## ") && !SVC_FOLDER.test(line.slice(3).replace(/^"/, ""))
  );
  return { branch: branch.slice(0, BRANCH_MAX) || "unknown", changed: changed.length };
}

/** The git state of `worktree` now; null when it is in no repository. */
export async function gitState(worktree: string): Promise<SessionEnvironment["git"]> {
  const place = gitRepositoryOf(worktree);
  if (!place) return null;
  const signal = AbortSignal.timeout(GIT_STATUS_TIMEOUT_MS);
  const out = await runGit(["status", "--porcelain=v1", "-b"], place, signal);
  if (out.code === 0) return parseGitStatus(out.stdout);
  const note = out.cancelled || out.timedOut
    ? `git status took over ${GIT_STATUS_TIMEOUT_MS / 1000} s`
    : out.code === -1
    ? "git is not installed"
    : `git status failed: ${out.stderr.trim().split("\n")[0].slice(0, 120)}`;
  return { branch: "unknown", changed: null, note };
}

/** The values taken now: date, time zone and (unless `git` is false) the repository state. */
export async function takeEnvironment(
  worktree: string,
  { clock = realClock, git = true }: { clock?: Clock; git?: boolean } = {},
): Promise<SessionEnvironment> {
  const now = clock.now();
  return {
    taken_at: new Date(now).toISOString(),
    date: localDate(now),
    time_zone: timeZone(now),
    ...(git ? { git: await gitState(worktree) } : {}),
  };
}

/** One line of plain text, at most `max` characters. */
const plain = (value: unknown, max: number) =>
  // deno-lint-ignore no-control-regex
  typeof value === "string" && value.length <= max && !/[\x00-\x1f\x7f]/.test(value);

/**
 * A stored value as svc writes it, or undefined (an older, hand-edited or hostile file: a session
 * file can come with a cloned repository, and what it holds goes into the system prompt).
 */
function storedEnvironment(value: unknown): SessionEnvironment | undefined {
  const v = value as Partial<SessionEnvironment> | undefined;
  if (!v || !/^\d{4}-\d{2}-\d{2}$/.test(String(v.date)) || !plain(v.time_zone, 80)) {
    return undefined;
  }
  const git = v.git;
  if (git === undefined || git === null) return v as SessionEnvironment;
  const counted = git.changed === null
    ? plain(git.note, 200)
    : Number.isSafeInteger(git.changed) && git.changed >= 0;
  return plain(git.branch, BRANCH_MAX + 20) && counted ? v as SessionEnvironment : undefined;
}

const taking = new WeakMap<SessionLog, Promise<SessionEnvironment>>();

/**
 * The session's environment values: the stored ones while they are from today (and hold the git
 * state when `git` wants it), else taken now and stored with the session's next write.
 */
export function sessionEnvironment(
  session: SessionLog,
  worktree: string,
  options: { clock?: Clock; git: boolean },
): Promise<SessionEnvironment> {
  const clock = options.clock ?? realClock;
  const stored = storedEnvironment(session.data.environment);
  if (
    stored && stored.date === localDate(clock.now()) && (!options.git || stored.git !== undefined)
  ) {
    return Promise.resolve(stored);
  }
  let pending = taking.get(session);
  if (!pending) {
    pending = takeEnvironment(worktree, { clock, git: options.git }).then((taken) => {
      // A write that fails is reported by the turn's own writes; the block is sent either way.
      session.setEnvironment(taken, { deferMs: 25 }).catch(() => {});
      return taken;
    }).finally(() => taking.delete(session));
    taking.set(session, pending);
  }
  return pending;
}
