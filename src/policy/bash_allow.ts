/**
 * The `tool_permission.bash_allow` rule: a command passes only when every chained segment starts
 * with an allowed prefix (whole words) and the parser understands all of it. It fails closed:
 * substitutions, heredocs, multi-line input, wrappers, writes outside the worktree and anything
 * else outside the supported subset are denied, whatever the prefixes say. A passing command that
 * names a path outside the worktree is marked for asking. The work is bounded by a budget.
 */
import { basename, join } from "../util/posix_path.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import { type ArgumentFacts, checkArguments } from "./bash_allow_args.ts";
import { BraceCounter, MAX_EXPANDED_WORDS } from "./bash_allow_braces.ts";
import { followReason } from "./bash_allow_follow.ts";
import { Budget, BudgetExceeded, MAX_COMMAND_CHARS, MAX_FOLDERS } from "./bash_allow_budget.ts";
import { literalOutside, PathJudge, wordOutside } from "./bash_allow_paths.ts";
import type { Resolved } from "./evaluate.ts";
import { lexCommand, type Segment, type Word } from "./bash_allow_lex.ts";
import { type RuleId, RULES } from "./bash_allow_rules.ts";
import { KEYWORDS, SAFE_DEVICES, SHELL_STATE, WRAPPERS } from "./bash_allow_tables.ts";

export { RULES } from "./bash_allow_rules.ts";

/**
 * The verdict of `bashAllowed`; `reason` starts with the rule's reason when denied. `ask` is set
 * when the command passes but names a path outside the worktree: callers escalate it to ask.
 * With `unlessSandboxed`, `ask` is something only the OS sandbox bounds (a recursive read that may
 * follow a symlink out, a brace expansion too large to allow): callers ask unless it holds the
 * command. A path outside wins over it, so such an ask is never marked.
 */
export interface BashVerdict {
  ok: boolean;
  reason: string;
  ask?: string;
  unlessSandboxed?: boolean;
}

/**
 * The policy resolver verdict of a `bash_allow` list for `command`: deny or ask with the reason,
 * or undefined to keep the bash category action (also when the list is empty). An ask about what
 * only the OS sandbox bounds carries `unlessSandboxed: true`.
 */
export function bashAllowPolicy(
  command: string,
  { prefixes, worktree }: { prefixes: string[] | undefined; worktree: string },
): Resolved | undefined {
  if (!prefixes?.length) return undefined;
  const verdict = bashAllowed(command, { prefixes, worktree });
  if (!verdict.ok) return { action: "deny", reason: verdict.reason };
  if (!verdict.ask) return undefined;
  return verdict.unlessSandboxed
    ? { action: "ask", reason: verdict.ask, unlessSandboxed: true }
    : { action: "ask", reason: verdict.ask };
}

/** bash opens network connections for these names in redirections. */
const NETWORK_PATH = /^\/dev\/(tcp|udp)\//;

const ALLOWED: BashVerdict = { ok: true, reason: "every segment starts with an allowed prefix" };

/** Where and against which allowlist `bashAllowed` checks a command. */
export interface BashAllowScope {
  /** The allowed command prefixes, the `bash_allow` list. */
  prefixes: string[];
  /** The folder paths must stay inside. */
  worktree: string;
}

/** Decides whether `command` passes the `prefixes` allowlist in `worktree`; fails closed. */
export function bashAllowed(command: string, { prefixes, worktree }: BashAllowScope): BashVerdict {
  if (command.length > MAX_COMMAND_CHARS) {
    return deny("budget", `it is longer than ${MAX_COMMAND_CHARS} characters`);
  }
  const lexed = lexCommand(command);
  if ("error" in lexed) return deny(lexed.error, lexed.detail);
  const allowed = prefixes.map(prefixWords).filter((p): p is string[] => p !== null);
  let root: string;
  try {
    root = canonicalPath(worktree, ".");
  } catch {
    return deny("redirect", "worktree cannot be resolved");
  }
  try {
    return judge(lexed.segments, allowed, root, new Budget());
  } catch (err) {
    if (err instanceof BudgetExceeded) return deny("budget", err.message);
    throw err;
  }
}

/** Last exit status a folder may be left with: bit 1 success, bit 2 failure. */
const OK = 1, FAIL = 2;

/**
 * Judges the segments in order, tracking the folders (and last status) each `cd` may leave the
 * shell in: `&&` runs the next segment only after success, `||` only after failure. Linear in the
 * segments; more than `MAX_FOLDERS` possible folders exceeds the budget.
 */
function judge(segments: Segment[], allowed: string[][], root: string, budget: Budget) {
  // Writes into .git (hooks, config) or .svc (svc's own config) would run code or widen policy later.
  const guarded = [join(root, ".git"), join(root, ".svc")];
  const paths = new PathJudge(root, budget);
  let states = new Map<string, number>([[root, OK]]);
  let ask: string | undefined, unbounded: string | undefined;
  const braces = { counter: new BraceCounter(), total: 0 };
  for (const seg of segments) {
    const runs = seg.op === "&&" ? OK : seg.op === "||" ? FAIL : OK | FAIL;
    const next = new Map<string, number>();
    let cwds: string[] = [];
    for (const [cwd, status] of states) {
      if (status & runs) cwds.push(cwd);
      // A segment skipped by `&&` or `||` leaves the status it found.
      if (status & ~runs) next.set(cwd, status & ~runs);
    }
    if (!cwds.length) cwds = [...states.keys()];
    const inside = (path: string) =>
      SAFE_DEVICES.has(path) || cwds.every((cwd) => {
        const real = paths.resolve(cwd, path);
        return real !== null && isInside(root, real) && !guarded.some((g) => isInside(g, real));
      });
    const facts: ArgumentFacts = { reads: [], code: new Set() };
    const result = checkSegment(seg, allowed, inside, facts);
    if (typeof result === "string") return deny(result, describe(seg));
    ask ??= outsideReason(seg, result.skip, facts, cwds, paths);
    unbounded ??= unboundedReason(seg, { cwds, paths, braces });
    const add = (cwd: string, status: number) => next.set(cwd, (next.get(cwd) ?? 0) | status);
    for (const cwd of cwds) {
      const target = result.cd === undefined ? null : paths.resolve(cwd, result.cd);
      if (target === null) add(cwd, OK | FAIL);
      else {
        add(target, OK);
        add(cwd, FAIL);
      }
    }
    if (next.size > MAX_FOLDERS) {
      throw new BudgetExceeded(`its cd commands may leave it in more than ${MAX_FOLDERS} folders`);
    }
    states = next;
  }
  if (ask) return { ...ALLOWED, ask };
  return unbounded ? { ...ALLOWED, ask: unbounded, unlessSandboxed: true } : ALLOWED;
}

/**
 * What only the OS sandbox bounds in a passing segment: brace expansions that, with the earlier
 * segments', make more than `MAX_EXPANDED_WORDS` words (echo and printf included), or a read that
 * may follow a symlink out of the worktree or take its paths from a list.
 */
function unboundedReason(
  seg: Segment,
  { cwds, paths, braces }: {
    cwds: string[];
    paths: PathJudge;
    braces: { counter: BraceCounter; total: number };
  },
): string | undefined {
  const targets = seg.redirects.filter((r) => r.target).map((r) => r.target!);
  for (const word of [...seg.words, ...targets]) {
    const words = braces.counter.count(word.mask);
    if (words > 1) braces.total += words;
    if (braces.total > MAX_EXPANDED_WORDS) {
      return `its brace expansions make more than ${MAX_EXPANDED_WORDS} words: ${clip(word.text)}`;
    }
  }
  const [first, ...args] = seg.words;
  // A glob such as `*` may match a file named like an option (`-R`).
  const dashNames = () => cwds.some((cwd) => paths.names(cwd).some((n) => n.startsWith("-")));
  const why = followReason(commandName(first.text), args, { dashNames });
  return why ? `${why}: ${describe(seg)}` : undefined;
}

/** Why a passing segment's arguments, input redirections or read files may reach outside. */
function outsideReason(
  seg: Segment,
  skip: number,
  facts: ArgumentFacts,
  cwds: string[],
  paths: PathJudge,
): string | undefined {
  // facts.code counts from the first argument, after the command word.
  const args = seg.words.filter((_, i) => i >= skip && !facts.code.has(i - 1));
  const inputs = seg.redirects.filter((r) => r.target && !r.write).map((r) => r.target!);
  for (const word of [...args, ...inputs]) {
    const why = wordOutside(word, { cwds, judge: paths });
    if (why) return `${why}: ${clip(word.text)}`;
  }
  const read = facts.reads.find((path) => literalOutside(path, { cwds, judge: paths }));
  return read === undefined ? undefined : `names a path outside the worktree: ${clip(read)}`;
}

/** Checks one segment; returns the broken rule, or how many leading words the allowlist named
 * and the folder a passing `cd` moves to. */
function checkSegment(
  seg: Segment,
  allowed: string[][],
  inside: (path: string) => boolean,
  facts: ArgumentFacts,
): RuleId | { skip: number; cd?: string } {
  for (const r of seg.redirects) {
    if (!r.target) continue;
    if (NETWORK_PATH.test(r.target.text)) return "redirect";
    if (r.write && (r.target.expands || r.target.glob || !inside(r.target.text))) return "redirect";
  }
  const [first, ...args] = seg.words;
  if (!first) return "prefix";
  if (KEYWORDS.has(first.text) && !first.expands) return "keyword";
  if (first.expands || first.glob) return "dynamic_command";
  if (/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(first.text)) return "assignment";
  const name = commandName(first.text);
  if (WRAPPERS.has(name)) return "wrapper";
  if (SHELL_STATE.has(name)) return "shell_state";
  if (name === "cd") {
    const target = args[0];
    if (
      args.length !== 1 || target.expands || target.glob || target.text === "" ||
      target.text.startsWith("-") || !inside(target.text)
    ) return "cd";
  }
  const matched = allowed.filter((prefix) => startsWith(seg.words, prefix));
  if (!matched.length) return "prefix";
  const rule = checkArguments(name, args, { inside, facts });
  if (rule) return rule;
  const skip = Math.max(...matched.map((p) => p.length));
  return name === "cd" ? { skip, cd: args[0].text } : { skip };
}

/** Whole-word prefix match on literal words: `git status` allows `git status -s`. */
function startsWith(words: Word[], prefix: string[]): boolean {
  if (prefix.length === 0 || prefix.length > words.length) return false;
  return prefix.every((p, i) => !words[i].expands && !words[i].glob && words[i].text === p);
}

/** Words of one allowlist entry, or null when the entry is not a plain literal command. */
function prefixWords(prefix: string): string[] | null {
  const lexed = lexCommand(prefix);
  if ("error" in lexed || lexed.segments.length !== 1) return null;
  const [seg] = lexed.segments;
  if (seg.redirects.length || seg.words.some((w) => w.expands || w.glob)) return null;
  return seg.words.map((w) => w.text);
}

/** The name that selects argument checks: the basename, with python versions folded. */
function commandName(word: string): string {
  const name = basename(word);
  return /^(python|pypy)[0-9.]*$/.test(name) ? "python" : name;
}

function describe(seg: Segment): string {
  return clip(seg.words.map((w) => w.text).join(" "));
}

function clip(text: string): string {
  return text.length > 80 ? text.slice(0, 77) + "..." : text;
}

function deny(rule: RuleId, detail?: string): BashVerdict {
  const reason = RULES[rule].reason;
  return { ok: false, reason: detail ? `${reason}: ${detail}` : reason };
}
