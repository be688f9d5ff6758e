/**
 * Reads bash_allow cannot bound by looking at paths: a program that walks a folder tree and
 * follows the symlinks it meets inside (`grep -R`, `find -L`, `zip -r`, ...) reads wherever a link
 * in the worktree points, and one that takes its list of paths from a file or stdin (`tar -T`,
 * `rsync --files-from`) reads paths the command line never names. Options are found wherever they
 * appear up to `--` (GNU tools permute), in short clusters (`-rnR`) and as abbreviated long options
 * (`--deref`); a value attached to a short option is read as more options, which errs towards
 * asking (`grep -eR x` asks, though `R` is the pattern there).
 */
import type { Word } from "./bash_allow_lex.ts";

/** Why a recursive read may follow a symlink out of the worktree. */
export const FOLLOW_REASON =
  "reads a folder tree recursively and may follow a symlink out of the worktree";
/** Why a read of listed paths may reach outside. */
export const LIST_REASON =
  "reads paths listed in a file or on stdin, which may lie outside the worktree";

/** The options of one command line, as far as they can be told from its words. */
interface Options {
  /** Letters of every short option cluster, and of tar's old-style first word. */
  short: Set<string>;
  /** Long option names (`--deref`), without their `=value`. */
  long: string[];
  /** Whole option words (`-follow`). */
  words: string[];
}

/** What a command reads beyond its named paths: null, or the reason. */
type FollowRule = (o: Options) => string | null;

/** Whether `o` holds one of the short `letters` or an abbreviation of one of the `longs`. */
function has(o: Options, letters: string, longs: string[] = []): boolean {
  if ([...letters].some((l) => o.short.has(l))) return true;
  return o.long.some((name) => name.length > 2 && longs.some((full) => full.startsWith(name)));
}

const LISTED = (longs: string[]): FollowRule => (o) => has(o, "", longs) ? LIST_REASON : null;

const grep: FollowRule = (o) =>
  // -R and --dereference-recursive follow every link; BSD grep's -S does too. Plain -r (GNU, BSD,
  // busybox) follows only links named on the command line, which the path checks already judge.
  has(o, "RS", ["--dereference-recursive"]) ? FOLLOW_REASON : null;

/** Commands that read more than their named paths, by the options that make them do it. */
const RULES: Record<string, FollowRule> = {
  grep,
  egrep: grep,
  fgrep: grep,
  rgrep: grep,
  rg: (o) => has(o, "L", ["--follow"]) ? FOLLOW_REASON : null,
  ag: (o) => has(o, "f", ["--follow"]) ? FOLLOW_REASON : null,
  ack: (o) => has(o, "", ["--follow"]) ? FOLLOW_REASON : null,
  find: (o) => o.short.has("L") || o.words.includes("-follow") ? FOLLOW_REASON : null,
  // BSD and macOS cp take -r as -RL: it follows every link.
  cp: (o) =>
    has(o, "r") || (has(o, "Ra", ["--recursive", "--archive"]) && has(o, "L", ["--dereference"]))
      ? FOLLOW_REASON
      : null,
  // Any tar that reads a tree: create, append, update and compare walk the named folders, and
  // -h or TAR_OPTIONS in the environment make it follow links; -T lists paths in a file.
  tar: (o) =>
    has(o, "T", ["--files-from"]) ? LIST_REASON : has(o, "cruhd", [
        "--create",
        "--append",
        "--update",
        "--diff",
        "--compare",
        "--dereference",
      ])
      ? FOLLOW_REASON
      : null,
  rsync: (o) =>
    has(o, "", ["--files-from"]) ? LIST_REASON : has(o, "rLka", [
        "--recursive",
        "--archive",
        "--copy-links",
        "--copy-unsafe-links",
        "--copy-dirlinks",
      ])
      ? FOLLOW_REASON
      : null,
  du: (o) =>
    has(o, "", ["--files0-from"])
      ? LIST_REASON
      : has(o, "L", ["--dereference"])
      ? FOLLOW_REASON
      : null,
  ls: (o) => has(o, "R", ["--recursive"]) && has(o, "L", ["--dereference"]) ? FOLLOW_REASON : null,
  zip: (o) =>
    has(o, "@", ["--names-stdin"])
      ? LIST_REASON
      : has(o, "rR", ["--recurse-paths", "--recurse-patterns"])
      ? FOLLOW_REASON
      : null,
  cpio: (o) => has(o, "op", ["--create", "--pass-through"]) ? LIST_REASON : null,
  chmod: (o) => has(o, "R", ["--recursive"]) && has(o, "L") ? FOLLOW_REASON : null,
  chown: (o) => has(o, "R", ["--recursive"]) && has(o, "L") ? FOLLOW_REASON : null,
  chgrp: (o) => has(o, "R", ["--recursive"]) && has(o, "L") ? FOLLOW_REASON : null,
  wc: LISTED(["--files0-from"]),
  sort: LISTED(["--files0-from"]),
};

/**
 * Why command `name` with `args` may read beyond the paths it names, or null. `dashNames` tells
 * whether a glob at the start of a word may match a file whose name starts with `-` (an option).
 */
export function followReason(
  name: string,
  args: Word[],
  { dashNames }: { dashNames: () => boolean },
): string | null {
  const rule = RULES[name];
  if (!rule) return null;
  const options: Options = { short: new Set(), long: [], words: [] };
  for (const [i, arg] of args.entries()) {
    const w = arg.text;
    if (w === "--") break;
    if (mayBecomeOption(arg, dashNames)) return FOLLOW_REASON;
    if (w.startsWith("--") && w.length > 2) options.long.push(w.split("=")[0]);
    else if (w.startsWith("-") && w !== "-") {
      options.words.push(w);
      for (const letter of w.slice(1)) options.short.add(letter);
    } else if (i === 0 && name === "tar") {
      for (const letter of w) options.short.add(letter);
    }
  }
  return rule(options);
}

/** Whether bash may turn `word` into an option the checks cannot read (`-$X`, `{-R,x}`, `*`). */
function mayBecomeOption(word: Word, dashNames: () => boolean): boolean {
  if (!word.expands && !word.glob) return false;
  const { text, mask } = word;
  if (text.startsWith("-")) {
    // `--include=*.ts` expands only its value; the option name is what matters.
    const eq = text.startsWith("--") ? text.indexOf("=") : -1;
    return OPEN.test(eq < 0 ? mask : mask.slice(0, eq));
  }
  // Sequences make only numbers and letters; a `-` in a comma list may start an alternative.
  if (mask[0] === "{") return text.includes("-");
  if (mask[0] === "$") return true;
  return GLOB_START.test(mask) && dashNames();
}

/** Characters bash may expand in an unquoted word. */
const OPEN = /[{$*?[]/;
const GLOB_START = /^[*?[]/;
