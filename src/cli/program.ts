import { Command } from "commander";
import { VERSION } from "../version.ts";
import { removeStaleTemps } from "../util/atomic.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { writeAllSync } from "../util/write_all.ts";
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
import { sandboxCommand } from "./sandbox_cmd.ts";
import { undoCommand } from "./undo_cmd.ts";
import { sessionsCommand } from "./sessions_cmd.ts";
import { acpCommand } from "./acp_cmd.ts";
import { USAGE_EXIT } from "./usage.ts";

/** Each top-level command by name, built on demand. */
const COMMANDS: ReadonlyArray<readonly [string, (setExit: (code: number) => void) => Command]> = [
  ["run", runCommand],
  ["config", configCommand],
  ["connect", connectCommand],
  ["plugins", (setExit) => pluginsCommand({ setExit })],
  ["serve", serveCommand],
  ["mcp", mcpCommand],
  ["acp", acpCommand],
  ["trust", trustCommand],
  ["types", (setExit) => catalogCommand("types", setExit)],
  ["skills", (setExit) => catalogCommand("skills", setExit)],
  ["teams", (setExit) => catalogCommand("teams", setExit)],
  ["eval", evalCommand],
  ["jobs", jobsCommand],
  ["fleet", fleetCommand],
  ["sandbox", sandboxCommand],
  ["sessions", sessionsCommand],
  ["undo", undoCommand],
];

/**
 * The commander program with every command, or with only the command named `only` (what argv
 * runs: the others are not built). Each command throws instead of exiting, and a usage
 * error names the problem and the command's `--help` in one short hint instead of the whole help.
 */
export function buildProgram(setExit: (code: number) => void, only?: string): Command {
  const program = new Command("svc")
    .description(
      "svc: a local agent runtime. With no arguments in a terminal, svc opens the interactive REPL; " +
        "svc --continue opens it on the worktree's most recent session, svc --resume [session] on " +
        "a saved one (a name or a unique prefix; without one, a picker).",
    )
    .version(VERSION, "-v, --version", "print the installed version");
  for (const [name, build] of COMMANDS) {
    if (only === undefined || only === name) program.addCommand(build(setExit));
  }
  const harden = (command: Command, path: string) => {
    command.exitOverride().showHelpAfterError(`(run "${path} --help" for usage)`)
      .configureOutput(OUTPUT);
    for (const sub of command.commands) harden(sub, `${path} ${sub.name()}`);
  };
  harden(program, "svc");
  return program;
}

/**
 * Commander's help, version and errors go through `Deno.stdout` and `Deno.stderr` like the rest
 * of svc's output (commander's default is Node's `process` streams); the help's width is the
 * terminal's, else 80, as commander's default.
 */
const OUTPUT = {
  writeOut: (text: string) => writeAllSync(Deno.stdout, text),
  writeErr: (text: string) => writeAllSync(Deno.stderr, text),
  getOutHelpWidth: () => Deno.stdout.isTerminal() ? Deno.consoleSize().columns : 80,
  getErrHelpWidth: () => Deno.stderr.isTerminal() ? Deno.consoleSize().columns : 80,
};

/** First arguments that open the REPL (repl_action.ts parses them; kept here so it loads lazily). */
const REPL_START = new Set(["--continue", "-c", "--resume", "-r"]);

/** Parses argv with the commander program and returns the exit code. */
export async function runCli(args: string[]): Promise<number> {
  if (Deno.env.get("SVC_FROM_TASK")) {
    const cwd = Deno.env.get("INIT_CWD");
    if (cwd) Deno.chdir(cwd);
  }
  await cleanConfigDir();
  // `svc`, `svc --continue`, `svc --resume [session]`: the REPL.
  if (args.length === 0 || REPL_START.has(args[0].split("=")[0])) {
    const { openRepl } = await import("./repl_action.ts");
    return await openRepl(args);
  }
  let exitCode = 0;
  // `svc run ...` builds only `run`; `svc --help`, `svc help` or a misspelt command build all,
  // so the help lists every command and commander can suggest the closest name.
  const named = COMMANDS.some(([name]) => name === args[0]) ? args[0] : undefined;
  const program = buildProgram((code) => {
    exitCode = code;
  }, named);
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
 * (API keys) in `~/.config/svc`; every start removes such leftovers. It also removes the `warm/`
 * folder of svc 0.27.0's warm runs (docs/decisions.md): an idle warm svc of that build, holding its
 * last caller's environment, exits once its socket is gone. Never fails a command.
 */
async function cleanConfigDir(): Promise<void> {
  try {
    const dir = globalConfigDir();
    await removeStaleTemps(dir);
    Deno.removeSync(`${dir}/warm`, { recursive: true });
  } catch {
    // No usable HOME (the command says so itself), an unreadable folder or no warm/: done.
  }
}
