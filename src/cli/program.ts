import { Command } from "commander";
import { VERSION } from "../version.ts";
import { removeStaleTemps } from "../util/atomic.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { runCommand } from "./run_cmd.ts";
import { configCommand } from "./config_cmd.ts";
import { connectCommand } from "./connect_cmd.ts";
import { pluginsCommand } from "./plugins_cmd.ts";
import { serveCommand } from "./serve_cmd.ts";
import { mcpCommand } from "./mcp_cmd.ts";
import { trustCommand } from "./trust_cmd.ts";
import { catalogCommand } from "./catalog_cmd.ts";
import { evalCommand } from "./eval_cmd.ts";
import { jobsCommand } from "./jobs_cmd.ts";
import { fleetCommand } from "./fleet_cmd.ts";
import { USAGE_EXIT } from "./usage.ts";

/**
 * The commander program with every command. Each command throws instead of exiting, and a usage
 * error names the problem and the command's `--help` in one short hint instead of the whole help.
 */
export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command("svc")
    .description(
      "svc: a local agent runtime. With no arguments in a terminal, svc opens the interactive REPL.",
    )
    .version(VERSION, "-v, --version", "print the installed version");
  program.addCommand(runCommand(setExit));
  program.addCommand(configCommand(setExit));
  program.addCommand(connectCommand(setExit));
  program.addCommand(pluginsCommand({ setExit }));
  program.addCommand(serveCommand(setExit));
  program.addCommand(mcpCommand(setExit));
  program.addCommand(trustCommand(setExit));
  program.addCommand(catalogCommand("types", setExit));
  program.addCommand(catalogCommand("skills", setExit));
  program.addCommand(catalogCommand("teams", setExit));
  program.addCommand(evalCommand(setExit));
  program.addCommand(jobsCommand(setExit));
  program.addCommand(fleetCommand(setExit));
  const harden = (command: Command, path: string) => {
    command.exitOverride().showHelpAfterError(`(run "${path} --help" for usage)`);
    for (const sub of command.commands) harden(sub, `${path} ${sub.name()}`);
  };
  harden(program, "svc");
  return program;
}

/** Parses argv with the commander program and returns the exit code. */
export async function runCli(args: string[]): Promise<number> {
  if (Deno.env.get("SVC_FROM_TASK")) {
    const cwd = Deno.env.get("INIT_CWD");
    if (cwd) Deno.chdir(cwd);
  }
  await cleanConfigDir();
  if (args.length === 0) {
    const { openRepl } = await import("./repl_action.ts");
    return await openRepl();
  }
  let exitCode = 0;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (err) {
    // Commander's own errors (unknown option or command, missing or excess argument, a bad
    // choice) carry an exit code; every one of them is a usage error.
    const code = (err as { exitCode?: number }).exitCode;
    if (typeof code === "number") return code === 0 ? 0 : USAGE_EXIT;
    throw err;
  }
  return exitCode;
}

/**
 * A save killed between writing its temp file and renaming it leaves a copy of providers.json
 * (API keys) in `~/.config/svc`; every start removes such leftovers. Never fails a command.
 */
async function cleanConfigDir(): Promise<void> {
  try {
    await removeStaleTemps(globalConfigDir());
  } catch {
    // No usable HOME (the command says so itself) or an unreadable folder: nothing to clean.
  }
}
