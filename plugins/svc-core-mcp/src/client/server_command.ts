/**
 * The program a stdio entry of `mcp.servers` starts. An entry whose command is exactly `svc` runs
 * this svc (`svcCommand`: the compiled binary, the installed launcher that started this svc, or the
 * Deno binary running main.ts) with the entry's arguments, not whatever `svc` comes first on PATH:
 * that may be another build, a wrapper that keeps signals from the server, or missing where svc
 * itself runs without PATH (a systemd unit, a container). Any other command is started as written.
 */
import { type CommandLine, svcCommand } from "../../../../src/plugin/api.ts";

/** The command line that starts the server `command` with `args`. */
export function serverCommand(command: string, args: readonly string[]): CommandLine {
  return command === "svc" ? svcCommand(args) : { command, args: [...args] };
}
