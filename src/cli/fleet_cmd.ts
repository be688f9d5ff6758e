import { Command, Option } from "commander";
import { resolveWorktree } from "../runtime/worktree.ts";
import { commaList, toolPermission, wholeNumber } from "./flags.ts";
import { exitCodeOf } from "./usage.ts";

type Commands = typeof import("../fleet/commands.ts");

/** `--path`: the fleet root (default: the current directory). */
interface FleetScope {
  path?: string;
}

/** Runs a fleet action of subcommand `sub`, reporting its failure and setting the exit code. */
type FleetRun = (
  sub: string,
  flags: FleetScope,
  action: (fleet: Commands, root: string) => Promise<number>,
) => () => Promise<void>;

/** `svc fleet`: many scoped `svc serve` agents of one root, kept alive by a supervisor. */
export function fleetCommand(setExit: (code: number) => void): Command {
  const run: FleetRun = (sub, flags, action) => async () => {
    try {
      setExit(await action(await import("../fleet/commands.ts"), resolveWorktree(flags.path)));
    } catch (err) {
      console.error(`svc fleet ${sub}: ${(err as Error).message}`);
      setExit(exitCodeOf(err));
    }
  };
  const cmd = new Command("fleet").description(
    "Supervise many scoped `svc serve` agents of one root (.svc/fleet.json): start them on " +
      "free ports, probe /health, restart them with backoff",
  );
  addRosterCommands(cmd, run);
  addConfigCommand(cmd, run);
  addSupervisorCommands(cmd, run);
  return cmd;
}

/** `--path`: where the fleet root is. */
function scoped(c: Command): Command {
  return c.option(
    "--path <dir>",
    "the fleet root holding .svc/fleet.json (default: current directory)",
  );
}

/** `--no-trust`: leave the agent folders untrusted. */
function trusting(c: Command): Command {
  return c.option(
    "--no-trust",
    "do not record the agent folders as trusted (their config may then only tighten the policy)",
  );
}

/** init, add, remove, enable and disable: the roster. */
function addRosterCommands(cmd: Command, run: FleetRun): void {
  trusting(scoped(cmd.command("init")))
    .description("Add every subfolder holding .svc/config.json to the roster")
    .action((flags) => run("init", flags, (f, root) => f.initRoster(root, flags))());
  trusting(scoped(cmd.command("add <name>")))
    .description("Add one agent to the roster")
    .option("--dir <dir>", "the agent folder (default: <root>/<name>)")
    .option("--port <n>", "preferred port (prefer_port); another free one when it is taken")
    .option("--max-restarts <n>", "restarts before the agent is left crashed (0: unlimited)", "10")
    .option("--disabled", "add it with enabled: false")
    .action((name: string, flags) =>
      run("add", flags, (f, root) =>
        f.addAgent(root, name, {
          ...flags,
          port: flags.port === undefined
            ? undefined
            : wholeNumber(flags.port, { flag: "--port", min: 1, max: 65535 }),
          maxRestarts: wholeNumber(flags.maxRestarts, { flag: "--max-restarts", min: 0 }),
        }))()
    );
  scoped(cmd.command("remove <name>"))
    .description("Remove an agent from the roster (a running supervisor stops it)")
    .action((name: string, flags) =>
      run("remove", flags, (f, root) => f.removeAgent(root, name))()
    );
  scoped(cmd.command("enable <name>"))
    .description("Set enabled: true (a crashed or disabled agent starts with a fresh count)")
    .action((name: string, flags) =>
      run("enable", flags, (f, root) => f.setAgentEnabled(root, { name, enabled: true }))()
    );
  scoped(cmd.command("disable <name>"))
    .description("Set enabled: false (a running supervisor stops the agent and leaves it alone)")
    .action((name: string, flags) =>
      run("disable", flags, (f, root) => f.setAgentEnabled(root, { name, enabled: false }))()
    );
}

/** config: an agent's .svc/config.json. */
function addConfigCommand(cmd: Command, run: FleetRun): void {
  scoped(cmd.command("config <name>"))
    .description("Write only the keys given into the agent's <dir>/.svc/config.json")
    .option("--provider <id>", "provider")
    .option("--model <model>", "model or provider/model ref (approved, as svc config set model)")
    .addOption(new Option("--mode <mode>", "mode").choices(["plan", "build"]))
    .option("--system-prompt <text>", "system_prompt")
    .option("--tools-deny <names>", "tools.deny, comma-separated tool names")
    .option(
      "--tool-permission <rules>",
      "tool_permission: category=action pairs (edit=deny,bash=ask) or a JSON object " +
        '({"bash_allow": [...]})',
    )
    .option("--type <name>", "inline an agent type's system_prompt, model and tool_permission")
    .option("--approve-model", "approve the model an agent type names (recorded in models.json)")
    .action((name: string, flags) =>
      run("config", flags, (f, root) =>
        f.configureAgent(root, name, {
          ...flags,
          toolsDeny: flags.toolsDeny === undefined ? undefined : commaList(flags.toolsDeny),
          toolPermission: flags.toolPermission === undefined
            ? undefined
            : toolPermission(flags.toolPermission),
        }))()
    );
}

/** up, down, status, restart and logs: the supervisor and its agents. */
function addSupervisorCommands(cmd: Command, run: FleetRun): void {
  scoped(cmd.command("up"))
    .description("Run the supervisor in the foreground (Ctrl-C stops every agent)")
    .option("--detach", "run it as a daemon in the background instead")
    .action((flags) => run("up", flags, (f, root) => f.up(root, flags))());
  scoped(cmd.command("down"))
    .description("Stop the supervisor and every agent")
    .action((flags) => run("down", flags, (f, root) => f.down(root))());
  scoped(cmd.command("status"))
    .description("State, health, pid, port, restarts, last exit and next retry of each agent")
    .option("--json", "print a JSON list with one object per agent")
    .action((flags) => run("status", flags, (f, root) => f.status(root, flags))());
  scoped(cmd.command("restart [name]"))
    .description("Restart an agent, or all (the default); resets its backoff and restart count")
    .action((name: string | undefined, flags) =>
      run("restart", flags, (f, root) => f.restart(root, name))()
    );
  scoped(cmd.command("logs <name> [n]"))
    .description("The last n lines (default 50) of the agent's log, <dir>/.svc/logs/<name>.log")
    .option("-f, --follow", "keep printing what is appended (Ctrl-C stops)")
    .action((name: string, count: string | undefined, flags) =>
      run(
        "logs",
        flags,
        (f, root) =>
          f.logs(root, name, {
            lines: count === undefined
              ? 50
              : wholeNumber(count, { flag: "n", min: 0, max: 1_000_000 }),
            follow: flags.follow,
          }),
      )()
    );
}
