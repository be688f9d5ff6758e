/**
 * Argument checks for commands that can run programs or write files through their arguments
 * (find, sed, awk, git, interpreters, package runners, file writers). Each returns the rule it
 * breaks, or null. Options are looked for in the whole argument list, since GNU tools read them
 * after operands too, and long options also in their abbreviated forms (`--to-com`).
 */
import type { Word } from "./bash_allow_lex.ts";
import type { RuleId } from "./bash_allow_rules.ts";
import {
  CONTENT_WRITERS,
  EXEC_OPTIONS,
  FIND_ACTIONS,
  INLINE_CODE,
  SAFE_DEVICES,
  TEXT_ARGS,
  WRAPPER_SUBCOMMANDS,
  WRITERS,
} from "./bash_allow_tables.ts";

/** Tells whether a literal path, resolved from every possible cwd, stays inside the worktree. */
export type PathCheck = (path: string) => boolean;

/** What the argument checks learn about a passing command besides the verdict. */
export interface ArgumentFacts {
  /** Files the command reads that are not words of their own (a sed script's `r file`). */
  reads: string[];
  /** Indexes into the arguments of words that are program text or separators, not paths. */
  code: Set<number>;
}

/** Runs the argument checks of command `name` on `args`, recording what it learns in `facts`. */
export function checkArguments(
  name: string,
  args: Word[],
  { inside, facts = { reads: [], code: new Set() } }: { inside: PathCheck; facts?: ArgumentFacts },
): RuleId | null {
  const words = args.map((w) => w.text);
  const literal = args.every((w) => !w.expands && !w.glob);
  if (TEXT_ARGS.has(name)) args.forEach((w, i) => w.glob || facts.code.add(i));
  const runners = WRAPPER_SUBCOMMANDS[name];
  if (runners && words.some((w) => runners.includes(w))) return "wrapper";
  if (name === "printf" && words[0]?.startsWith("-v")) return "shell_state";
  if (name === "python") return literal ? checkPython(words) : "dynamic_args";
  if (INLINE_CODE[name]) {
    if (!literal) return "dynamic_args";
    return words.some((w) => optionHit(w, INLINE_CODE[name])) ? "inline_code" : null;
  }
  if (EXEC_OPTIONS[name]) {
    if (!literal) return "dynamic_args";
    const oldStyle = name === "tar" && words[0] && !words[0].startsWith("-")
      ? ["-" + words[0]]
      : [];
    if ([...oldStyle, ...words].some((w) => optionHit(w, EXEC_OPTIONS[name]))) return "exec_option";
  }
  if (WRITERS.has(name)) return checkWriter(name, args, inside);
  if (name === "find") {
    if (!literal) return "dynamic_args";
    return words.some((w) => FIND_ACTIONS.some((a) => w.startsWith(a))) ? "find_exec" : null;
  }
  if (name === "sed") return literal ? checkSed(words, facts) : "dynamic_args";
  if (/^[gmn]?awk$/.test(name)) return literal ? checkAwk(words, facts.code) : "dynamic_args";
  if (name === "git") return literal ? checkGit(words, inside) : "dynamic_args";
  return null;
}

/** Real options that are also abbreviations of denied ones (`--text` of `--textconv`). */
const EXACT_OPTIONS = new Set(["--text", "--checkpoint"]);

/**
 * `--long` matches itself, `--long=...` and abbreviations (`--lo`, which GNU getopt accepts);
 * `-x` matches any short cluster holding x.
 */
function optionHit(arg: string, options: string[]): boolean {
  const long = arg.startsWith("--") && arg.length > 2 ? arg.split("=")[0] : null;
  return options.some((o) => {
    if (o.startsWith("--")) {
      return arg === o || arg.startsWith(o + "=") ||
        (long !== null && o.startsWith(long) && !EXACT_OPTIONS.has(long));
    }
    if (o.length === 2 && o.startsWith("-")) {
      return arg.startsWith("-") && !arg.startsWith("--") && arg.includes(o[1]);
    }
    return arg === o || ((o.startsWith("-") || o.endsWith(":")) && arg.startsWith(o));
  });
}

/** python: options before the script or `-m module` may not include `-c`. */
function checkPython(words: string[]): RuleId | null {
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === "--" || !w.startsWith("-") || w.startsWith("--")) return null;
    for (const ch of w.slice(1)) {
      if (ch === "c") return "inline_code";
      if (ch === "m") return null;
      if (ch === "W" || ch === "X") {
        if (w.endsWith(ch)) i++;
        break;
      }
    }
  }
  return null;
}

/** Path operands and option values of file writers must be literal and inside the worktree. */
function checkWriter(name: string, args: Word[], within: PathCheck): RuleId | null {
  // `tee /dev/null` writes into the device; `rm`, `mv` or `chmod` would replace or break it.
  const inside = (path: string) =>
    (CONTENT_WRITERS.has(name) || !SAFE_DEVICES.has(path)) && within(path);
  let options = true;
  for (const arg of args) {
    if (arg.expands) return "write_path";
    const w = arg.text;
    if (options && w === "--") {
      options = false;
      continue;
    }
    let path = w;
    if (options && w.startsWith("-") && w !== "-") {
      const eq = w.indexOf("=");
      if (w.startsWith("--")) {
        if (eq < 0) continue;
        path = w.slice(eq + 1);
      } else {
        // A short cluster may end in an attached value (`-t.git`, `-o/tmp/x`): check each tail.
        for (let i = 2; i < w.length; i++) if (!inside(w.slice(i))) return "write_path";
        continue;
      }
    } else if (name === "dd") {
      if (!w.startsWith("of=")) continue;
      path = w.slice(3);
    }
    if (!inside(path)) return "write_path";
  }
  return null;
}

const SED_SIMPLE = "pdDnNPgGhHx=lzF{}";
const SED_LONG =
  /^--(quiet|silent|regexp-extended|posix|debug|null-data|zero-terminated|separate|unbuffered|sandbox)$/;

/**
 * Accepts only sed scripts built from commands that neither run programs nor write files. GNU sed
 * reads options anywhere before `--` (`sed p f -i`, `sed -n p -e '1e id' f`), so every word is
 * classified; any option it does not know is denied.
 */
function checkSed(words: string[], facts: ArgumentFacts): RuleId | null {
  const scripts: string[] = [];
  const operands: number[] = [];
  const script = (at: number, text = words[at] ?? "") => {
    scripts.push(text);
    facts.code.add(at);
  };
  let options = true;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (!options || w === "-" || !w.startsWith("-")) operands.push(i);
    else if (w === "--") options = false;
    else if (w === "--expression") script(++i);
    else if (w.startsWith("--expression=")) script(i, w.slice(13));
    else if (w.startsWith("--")) {
      if (!SED_LONG.test(w)) return "sed_exec";
    } else {
      const m = /^-([nErsuz]*)(e(.*))?$/.exec(w);
      if (!m) return "sed_exec";
      if (m[2] !== undefined) m[3] !== "" ? script(i, m[3]) : script(++i);
    }
  }
  if (!scripts.length) script(operands[0] ?? words.length);
  for (const text of scripts) {
    const parsed = parseSedScript(text);
    if (!parsed) return "sed_exec";
    facts.reads.push(...parsed.reads);
  }
  return null;
}

/** Parses a sed script: addresses, simple commands, s and y; rejects e, w, W and unknowns. */
export function sedScriptSafe(script: string): boolean {
  return parseSedScript(script) !== null;
}

/** A safe sed script's files read by `r` and `R`, or null when the script is not safe. */
function parseSedScript(script: string): { reads: string[] } | null {
  const reads: string[] = [];
  const safe = scanSed(script, reads);
  return safe ? { reads } : null;
}

function scanSed(script: string, reads: string[]): boolean {
  let i = 0;
  const delimited = (): boolean => {
    const delim = script[i];
    if (delim === undefined || delim === "\\") return false;
    i++;
    while (i < script.length && script[i] !== delim) i += script[i] === "\\" ? 2 : 1;
    if (i >= script.length) return false;
    i++;
    return true;
  };
  while (i < script.length) {
    while (" ;\t".includes(script[i] ?? "x")) i++;
    if (i >= script.length) return true;
    for (let part = 0; part < 2; part++) {
      if (script[i] === "/" || script[i] === "\\") {
        if (script[i] === "\\") i++;
        if (!delimited()) return false;
      } else while (/[0-9$~+]/.test(script[i] ?? "")) i++;
      if (script[i] !== "," || part === 1) break;
      i++;
    }
    while (" !".includes(script[i] ?? "x")) i++;
    const cmd = script[i++];
    if (cmd === undefined) return false;
    if (SED_SIMPLE.includes(cmd) || cmd === "q" || cmd === "Q") {
      while (/[0-9 ]/.test(script[i] ?? "")) i++;
    } else if ("aic".includes(cmd)) return true; // text: the rest of the script is its argument
    else if ("rR".includes(cmd)) {
      // a file to read: the rest of the script names it
      const file = script.slice(i).replace(/^[ \t]+/, "");
      if (file) reads.push(file);
      return true;
    } else if ("btT:".includes(cmd)) {
      while (i < script.length && script[i] !== ";") i++;
    } else if (cmd === "s" || cmd === "y") {
      if (!delimited()) return false;
      i--;
      if (!delimited()) return false;
      if (cmd === "s") { while (/[gpiImM0-9]/.test(script[i] ?? "")) i++; }
      if (i < script.length && !" ;}".includes(script[i])) return false;
    } else return false;
  }
  return true;
}

/** awk: only -F and -v options; no system(), pipes, output redirection or extensions. */
function checkAwk(words: string[], code: Set<number>): RuleId | null {
  let i = 0;
  for (; i < words.length; i++) {
    const w = words[i];
    if (w === "--") {
      i++;
      break;
    }
    // Field separators and variable values are text, not paths (`-F/`).
    code.add(i);
    if (w === "-F" || w === "-v") code.add(++i);
    else if (w.startsWith("-F") || w.startsWith("-v")) continue;
    else if (w.startsWith("-")) return "awk_exec";
    else break;
  }
  code.add(i);
  const program = words[i] ?? "";
  // getline < file reads a file the argument list does not name.
  return /system|[|>@]|getline[^]*</.test(program) ? "awk_exec" : null;
}

const GIT_GLOBAL_OK = new Set(["--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs"]);
/** Known builtins; anything else may be an alias, and `!alias` runs a shell command. */
const GIT_SUBCOMMANDS = new Set(
  ("add am annotate apply archive blame branch bundle cat-file check-attr check-ignore checkout " +
    "cherry cherry-pick clean clone commit commit-tree config count-objects describe diff " +
    "diff-files diff-index diff-tree fetch for-each-ref format-patch fsck gc grep hash-object " +
    "init log ls-files ls-remote ls-tree merge merge-base merge-tree mv name-rev notes pull push " +
    "range-diff read-tree rebase reflog remote repack replace reset restore rev-list rev-parse " +
    "revert rm shortlog show show-branch show-ref sparse-checkout stash status switch " +
    "symbolic-ref tag update-index update-ref var verify-commit verify-pack verify-tag version " +
    "whatchanged worktree write-tree").split(" "),
);
const GIT_DENIED_OPTIONS = [
  "--output",
  "--ext-diff",
  "--textconv",
  "--upload-pack",
  "--receive-pack",
  "--exec",
  "--config",
  "--config-env",
  "--template",
  "--open-files-in-pager",
];
const GIT_SHORT_DENIED: Record<string, string[]> = {
  clone: ["-c", "-u"],
  grep: ["-O"],
  rebase: ["-x"],
  fetch: ["-u"],
  pull: ["-u"],
};

/** git: a few global options, known builtins, no program-running options, paths inside. */
function checkGit(words: string[], inside: PathCheck): RuleId | null {
  let i = 0;
  while (i < words.length && words[i].startsWith("-")) {
    if (!GIT_GLOBAL_OK.has(words[i])) return "git_option";
    i++;
  }
  const sub = words[i] ?? "";
  const rest = words.slice(i + 1);
  if (sub === "") return null;
  if (!GIT_SUBCOMMANDS.has(sub)) return "git_option";
  if (sub === "config" && !/^(--get(-all|-regexp)?|--list|-l)$/.test(rest[0] ?? "")) {
    return "git_option";
  }
  const denied = [...GIT_DENIED_OPTIONS, ...(GIT_SHORT_DENIED[sub] ?? [])];
  const end = rest.indexOf("--");
  const options = end < 0 ? rest : rest.slice(0, end);
  if (options.some((w) => optionHit(w, denied))) return "git_option";
  const paths = rest.map((w) => w.startsWith("-") ? w.slice(w.indexOf("=") + 1 || w.length) : w);
  return paths.every((p) => p === "" || inside(p)) ? null : "write_path";
}
