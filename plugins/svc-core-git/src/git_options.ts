/**
 * Allowed options per git subcommand. `--opt=*` allows any value, `#` stands for digits, `*`
 * after a short option allows any attached value. Everything else starting with `-` is refused,
 * so options such as `-c`, `--output`, `--ext-diff`, `--textconv` or `--no-index` never pass.
 */

const words = (text: string) => text.split(" ");

const DIFF = words(
  "--stat --stat=* --numstat --shortstat --dirstat --name-only --name-status --summary -p " +
    "--patch -s --no-patch --raw -w --ignore-all-space -b --ignore-space-change " +
    "--ignore-blank-lines --word-diff --word-diff=* --patience --histogram --minimal -M -M# " +
    "--find-renames --find-renames=* -R --diff-filter=* -U# --unified=* --relative " +
    "--relative=* --abbrev --abbrev=* --full-index -z --no-color --color=never --check " +
    "--no-renames --src-prefix=* --dst-prefix=* --no-prefix",
);

const LOG = [
  ...DIFF,
  ...words(
    "--oneline -# -n# --max-count=* --skip=* --since=* --after=* --until=* --before=* " +
      "--author=* --committer=* --grep=* -i --regexp-ignore-case --all --branches --tags " +
      "--remotes --graph --decorate --decorate=* --no-decorate --format=* --pretty --pretty=* " +
      "--date=* --abbrev-commit --no-merges --merges --first-parent --reverse --follow -S* -G* " +
      "--pickaxe-all --topo-order --date-order --left-right --cherry-pick --ancestry-path " +
      "--simplify-by-decoration -L*",
  ),
];

/** Allowed options of each subcommand of the git tool. */
export const GIT_OPTIONS: Record<string, string[]> = {
  status: words(
    "-s --short -b --branch --porcelain --porcelain=* --long -u -uno -unormal -uall " +
      "--untracked-files=* --ignored --ignored=* -z --show-stash --ahead-behind " +
      "--no-ahead-behind --renames --no-renames",
  ),
  diff: [...DIFF, ...words("--cached --staged --merge-base --exit-code --quiet")],
  log: LOG,
  show: LOG,
  branch: words(
    "-a --all -r --remotes -v -vv --verbose --list --show-current --contains=* " +
      "--no-contains=* --merged --merged=* --no-merged --no-merged=* --points-at=* --sort=* " +
      "--format=* --abbrev=* --no-abbrev --no-color --color=never -i --ignore-case",
  ),
  rev_parse: words(
    "--abbrev-ref --abbrev-ref=* --short --short=* --verify --quiet -q --show-toplevel " +
      "--show-prefix --show-cdup --is-inside-work-tree --is-inside-git-dir --is-bare-repository " +
      "--symbolic-full-name --symbolic --all --branches --tags",
  ),
};

function allowed(option: string, patterns: string[]): boolean {
  return patterns.some((p) => {
    if (p.endsWith("=*")) return option.startsWith(p.slice(0, -1));
    if (p.endsWith("#")) return new RegExp(`^${p.slice(0, -1)}\\d+$`).test(option);
    if (p.length === 3 && p.endsWith("*")) return option.startsWith(p.slice(0, 2));
    return option === p;
  });
}

/** Checks user arguments of a git subcommand; returns a sentence-case reason when refused. */
export function checkGitArgs(subcommand: string, args: string[]): string | null {
  const patterns = GIT_OPTIONS[subcommand];
  let paths = false, positional = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.includes("\0")) return "Arguments may not contain NUL bytes";
    if (paths) continue;
    if (arg === "--" && subcommand !== "branch") {
      paths = true;
      continue;
    }
    if (!arg.startsWith("-")) {
      positional++;
      continue;
    }
    if (arg === "-n" && (subcommand === "log" || subcommand === "show")) {
      if (!/^\d+$/.test(args[++i] ?? "")) return "Option -n needs a number";
      continue;
    }
    if (!allowed(arg, patterns)) return `Option ${arg} is not allowed for git ${subcommand}`;
    if (/^--(format|pretty)=.*%G/.test(arg)) {
      return "Signature placeholders (%G) are not allowed: they run gpg";
    }
  }
  if (subcommand === "branch" && positional > 0 && !args.includes("--list")) {
    return "git branch takes names only with --list (it is read-only here)";
  }
  return null;
}
