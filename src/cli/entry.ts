import { VERSION } from "../version.ts";
import { adoptLauncherEnv } from "../launch/launcher.ts";

/**
 * Process entry: answers `--version` without loading anything else, then hands argv to the
 * commander program (loaded lazily so startup stays cheap). Returns the exit code.
 */
export async function main(args: string[]): Promise<number> {
  adoptLauncherEnv();
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
    console.log(VERSION);
    return 0;
  }
  const { runCli } = await import("./program.ts");
  return await runCli(args);
}
