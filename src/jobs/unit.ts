/**
 * Running the daemon under the user's service manager: a systemd user unit that starts
 * `svc jobs --path <worktree> daemon` at login and restarts it when it fails. SIGTERM (what
 * `systemctl --user stop` sends) cancels the running attempt, saves it and exits 0.
 */
import { basename, join } from "../util/path.ts";
import { launcherPath } from "../util/launcher.ts";

/**
 * The command that starts svc: a compiled binary itself, else the installed launcher that started
 * this svc, else `svc` on PATH, else ~/.deno/bin/svc.
 */
export function svcCommand(): string {
  const exec = Deno.execPath();
  if (!basename(exec).startsWith("deno")) return exec;
  const launcher = launcherPath();
  if (launcher) return launcher;
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").filter(Boolean)) {
    const candidate = join(dir, "svc");
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && info.mode !== null && (info.mode & 0o111) !== 0) return candidate;
    } catch { /* not there */ }
  }
  return "%h/.deno/bin/svc";
}

/** Quotes a word for a systemd command line when it needs it. */
function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/(["\\])/g, "\\$1")}"`;
}

/** A unit name for a worktree: `svc-jobs-<folder>.service`, sanitized. */
export function unitName(worktree: string): string {
  const folder = basename(worktree).replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "");
  return `svc-jobs-${folder || "root"}.service`;
}

/** The text of a systemd user unit running the jobs daemon of `worktree`. */
export function systemdUnit(worktree: string, tickSeconds: number, command = svcCommand()): string {
  const exec = [command, "jobs", "--path", worktree, "daemon", "--tick", String(tickSeconds)]
    .map(quote).join(" ");
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
