/**
 * Command tables of the bash_allow parser: keywords, wrappers, shell-state builtins and the
 * commands whose arguments can run programs or write files.
 */

/** Devices every redirection and writer may target. */
export const SAFE_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** Reserved words: compound commands are not parsed, so they never pass. */
export const KEYWORDS = new Set(
  "! { } [[ ]] if then else elif fi for while until do done case esac select function in coproc"
    .split(" "),
);

/** Commands that run another command, whatever their arguments. */
export const WRAPPERS = new Set(
  ("env xargs sh bash dash zsh ksh mksh fish csh tcsh busybox eval exec source . command builtin " +
    "nohup timeout time sudo doas su runuser pkexec setsid nice ionice chrt taskset stdbuf " +
    "unbuffer chroot unshare nsenter firejail systemd-run script expect watch parallel flock " +
    "strace ltrace valgrind gdb npx bunx uvx pnpx fakeroot proot ssh-agent dbus-launch sg newgrp " +
    "at batch crontab tmux screen xdg-open vi vim nvim ex ed emacs trap").split(" "),
);

/** Subcommands that turn a package tool into a wrapper (`npm exec rm`). */
export const WRAPPER_SUBCOMMANDS: Record<string, string[]> = {
  npm: ["exec", "x", "explore"],
  pnpm: ["dlx", "exec"],
  yarn: ["dlx", "exec"],
  bun: ["x"],
  uv: ["run", "tool"],
  pipx: ["run"],
  poetry: ["run"],
  pdm: ["run"],
  conda: ["run"],
};

/** Builtins that change variables, aliases, options or command lookup of the shell. */
export const SHELL_STATE = new Set(
  ("export declare typeset local readonly let unset alias unalias set shopt enable hash read " +
    "mapfile readarray getopts pushd popd fc bind complete shift history").split(" "),
);

/** Interpreter flags that run inline code (single letters also match inside clusters). */
export const INLINE_CODE: Record<string, string[]> = {
  node: ["-e", "-p", "--eval", "--print", "--import", "--loader", "--experimental-loader", "data:"],
  nodejs: ["-e", "-p", "--eval", "--print", "--import", "--loader", "--experimental-loader"],
  perl: ["-e", "-E"],
  ruby: ["-e"],
  php: ["-r", "-B", "-R", "-E"],
  bun: ["-e", "-p", "--eval", "--print", "data:"],
  lua: ["-e"],
  Rscript: ["-e"],
  deno: ["eval", "--eval", "--eval-file", "data:"],
};

/** Options that make a command run another program or write anywhere. */
export const EXEC_OPTIONS: Record<string, string[]> = {
  rg: ["--pre", "--hostname-bin"],
  tar: [
    "--to-command",
    "--use-compress-program",
    "-I",
    "-F",
    "--checkpoint-action",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
  ],
  sort: ["--compress-program"],
  rsync: ["-e", "--rsh", "--rsync-path"],
  ssh: ["-o", "-F"],
  scp: ["-o", "-F", "-S"],
  zip: ["-TT", "--unzip-command"],
  man: ["-P", "--pager", "-H", "--html"],
  make: ["--eval", "-E"],
};

/** Commands whose path operands (and `--opt=value` values) must stay inside the worktree. */
export const WRITERS = new Set(
  ("rm rmdir mv cp ln touch mkdir tee chmod chown chgrp truncate install shred unlink dd sort " +
    "split csplit gzip gunzip bzip2 bunzip2 xz unxz zstd tar unzip").split(" "),
);

/** Writers that only write into the files they name, so the safe devices are fine for them. */
export const CONTENT_WRITERS = new Set(["tee", "dd", "sort"]);

/** Commands that never open their arguments as files: only the globs bash expands are paths. */
export const TEXT_ARGS = new Set(
  "echo printf tr seq expr basename dirname true false sleep yes".split(" "),
);

/** find actions that run commands or write files. */
export const FIND_ACTIONS = ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls"];
