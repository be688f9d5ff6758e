import { VERSION } from "../version.ts";
import { adoptLauncherEnv } from "../util/launcher.ts";
import { runWarm } from "./warm_client.ts";
import { warmEligible } from "./warm_socket.ts";

/**
 * Process entry: answers `--version` without loading anything else, hands `svc run` to a warm svc
 * when one waits (warm_client.ts), then hands argv to the commander program (loaded lazily so
 * startup stays cheap). Returns the exit code.
 */
export async function main(args: string[]): Promise<number> {
  adoptLauncherEnv();
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
    console.log(VERSION);
    return 0;
  }
  if (args[0] === "__warm" && args.length === 1) {
    return await (await import("./warm_server.ts")).serveWarm();
  }
  const warm = args[0] === "run" && warmEligible() ? await runWarm(args) : null;
  if (warm && "code" in warm) return warm.code;
  const { runCli } = await import("./program.ts");
  const code = await runCli(args);
  if (warm?.cold === "none") (await import("./warm_server.ts")).startWarm();
  return code;
}
