/**
 * Running the daemon under the user's service manager: a systemd user unit that starts
 * `svc jobs --path <worktree> daemon` at login and restarts it when it fails. SIGTERM (what
 * `systemctl --user stop` sends) cancels the running attempt, saves it and exits 0.
 */
import { basename } from "../util/posix_path.ts";
import { type CommandLine, svcCommand } from "../launch/svc_command.ts";

/**
 * Quotes a word for a systemd command line when it needs it; `%` (systemd's specifier sign) is
 * doubled so a path is taken as it is.
 */
function quote(word: string): string {
  const literal = word.replaceAll("%", "%%");
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(literal)
    ? literal
    : `"${literal.replace(/(["\\])/g, "\\$1")}"`;
}

/** A unit name for a worktree: `svc-jobs-<folder>.service`, sanitized. */
export function unitName(worktree: string): string {
  const folder = basename(worktree).replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "");
  return `svc-jobs-${folder || "root"}.service`;
}

/**
 * The text of a systemd user unit running the jobs daemon of `worktree` with this svc
 * (src/launch/svc_command.ts: a compiled binary itself, the installed launcher that started it, or
 * the Deno binary running main.ts), never whatever `svc` or `deno` comes first on PATH.
 */
export function systemdUnit(
  worktree: string,
  tickSeconds: number,
  line: CommandLine = svcCommand([
    "jobs",
    "--path",
    worktree,
    "daemon",
    "--tick",
    String(tickSeconds),
  ]),
): string {
  const exec = [line.command, ...line.args].map(quote).join(" ");
  return [
    `# ${unitName(worktree)}: the svc jobs daemon of ${worktree}`,
    `# Install: save as ~/.config/systemd/user/${unitName(worktree)}, then`,
    `#   systemctl --user daemon-reload && systemctl --user enable --now ${unitName(worktree)}`,
    "# Logs: journalctl --user -u " + unitName(worktree),
    "[Unit]",
    `Description=svc jobs daemon for ${worktree}`,
    "After=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `WorkingDirectory=${quote(worktree)}`,
    `ExecStart=${exec}`,
    "Environment=NO_COLOR=1",
    "Restart=on-failure",
    "RestartSec=30",
    "KillSignal=SIGTERM",
    "TimeoutStopSec=60",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}
