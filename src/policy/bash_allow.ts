/**
 * The `tool_permission.bash_allow` rule: a command passes only when every chained segment starts
 * with an allowed prefix (whole words) and the parser understands all of it. It fails closed:
 * substitutions, heredocs, multi-line input, wrappers, writes outside the worktree and anything
 * else outside the supported subset are denied, whatever the prefixes say.
 */
import { basename, join } from "node:path";
import { canonicalPath, isInside } from "../util/paths.ts";
import { checkArguments } from "./bash_allow_args.ts";
import { lexCommand, type Segment, type Word } from "./bash_allow_lex.ts";
import { type RuleId, RULES } from "./bash_allow_rules.ts";
import { KEYWORDS, SAFE_DEVICES, SHELL_STATE, WRAPPERS } from "./bash_allow_tables.ts";

export { RULES } from "./bash_allow_rules.ts";

/** The verdict of `bashAllowed`; `reason` starts with the rule's reason when denied. */
export interface BashVerdict {
  ok: boolean;
  reason: string;
}

/** bash opens network connections for these names in redirections. */
const NETWORK_PATH = /^\/dev\/(tcp|udp)\//;

const ALLOWED: BashVerdict = { ok: true, reason: "every segment starts with an allowed prefix" };

/** Decides whether `command` passes the `prefixes` allowlist in `worktree`; fails closed. */
export function bashAllowed(command: string, prefixes: string[], worktree: string): BashVerdict {
  const lexed = lexCommand(command);
  if ("error" in lexed) return deny(lexed.error, lexed.detail);
  const allowed = prefixes.map(prefixWords).filter((p): p is string[] => p !== null);
  let root: string;
  try {
    root = canonicalPath(worktree, ".");
  } catch {
    return deny("redirect", "worktree cannot be resolved");
  }
  // Writes into .git (hooks, config) or .svc (svc's own config) would run code or widen policy later.
  const guarded = [join(root, ".git"), join(root, ".svc")];
  let cwds = [root];
  for (const seg of lexed.segments) {
    const inside = (path: string) =>
      SAFE_DEVICES.has(path) || cwds.every((cwd) => {
        const real = canonicalPath(cwd, path);
        return isInside(root, real) && !guarded.some((g) => isInside(g, real));
      });
    const result = checkSegment(seg, allowed, inside);
    if (typeof result === "string") return deny(result, describe(seg));
    if (result.cd) {
      const target = result.cd;
      cwds = [...new Set([...cwds, ...cwds.map((cwd) => canonicalPath(cwd, target))])];
    }
  }
  return ALLOWED;
}

/** Checks one segment; returns the broken rule, or the folder a passing `cd` moves to. */
function checkSegment(
  seg: Segment,
  allowed: string[][],
  inside: (path: string) => boolean,
): RuleId | { cd?: string } {
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
  if (!allowed.some((prefix) => startsWith(seg.words, prefix))) return "prefix";
  const rule = checkArguments(name, args, inside);
  if (rule) return rule;
  return name === "cd" ? { cd: args[0].text } : {};
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
  const text = seg.words.map((w) => w.text).join(" ");
  return text.length > 80 ? text.slice(0, 77) + "..." : text;
}

function deny(rule: RuleId, detail?: string): BashVerdict {
  const reason = RULES[rule].reason;
  return { ok: false, reason: detail ? `${reason}: ${detail}` : reason };
}
