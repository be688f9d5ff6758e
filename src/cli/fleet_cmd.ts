import { Command, Option } from "commander";
import { exitCodeOf } from "./usage.ts";

type Actions = typeof import("./fleet_action.ts");

/** `svc fleet`: many scoped `svc serve` agents of one root, kept alive by a supervisor. */
export function fleetCommand(setExit: (code: number) => void): Command {
  const run = (sub: string, action: (actions: Actions) => Promise<number>) => async () => {
    try {
      setExit(await action(await import("./fleet_action.ts")));
    } catch (err) {
      console.error(`svc fleet ${sub}: ${(err as Error).message}`);
      setExit(exitCodeOf(err));
    }
  };
  const cmd = new Command("fleet").description(
    "Supervise many scoped `svc serve` agents of one root (.svc/fleet.json): start them on " +
      "free ports, probe /health, restart them with backoff",
  );
  const scoped = (c: Command) =>
    c.option("--path <dir>", "the fleet root holding .svc/fleet.json (default: current directory)");
  const trusting = (c: Command) =>
    c.option(
      "--no-trust",
      "do not record the agent folders as trusted (their config may then only tighten the policy)",
    );

  trusting(scoped(cmd.command("init")))
    .description("Add every subfolder holding .svc/config.json to the roster")
    .action((flags) => run("init", (a) => a.init(flags))());
  trusting(scoped(cmd.command("add <name>")))
    .description("Add one agent to the roster")
    .option("--dir <dir>", "the agent folder (default: <root>/<name>)")
    .option("--port <n>", "preferred port (prefer_port); another free one when it is taken")
    .option("--max-restarts <n>", "restarts before the agent is left crashed (0: unlimited)", "10")
    .option("--disabled", "add it with enabled: false")
    .action((name: string, flags) => run("add", (a) => a.add(name, flags))());
  scoped(cmd.command("remove <name>"))
    .description("Remove an agent from the roster (a running supervisor stops it)")
    .action((name: string, flags) => run("remove", (a) => a.remove(name, flags))());
  scoped(cmd.command("enable <name>"))
    .description("Set enabled: true (a crashed or disabled agent starts with a fresh count)")
    .action((name: string, flags) => run("enable", (a) => a.setEnabled(name, true, flags))());
  scoped(cmd.command("disable <name>"))
    .description("Set enabled: false (a running supervisor stops the agent and leaves it alone)")
    .action((name: string, flags) => run("disable", (a) => a.setEnabled(name, false, flags))());
  scoped(cmd.command("config <name>"))
    .description("Write only the keys given into the agent's <dir>/.svc/config.json")
    .option("--provider <id>", "provider")
    .option("--model <model>", "model or provider/model ref (approved, as svc config set model)")
    .addOption(new Option("--mode <mode>", "mode").choices(["plan", "build"]))
    .option("--system-prompt <text>", "system_prompt")
    .option("--tools-deny <names>", "tools.deny, comma-separated tool names")
    .option(
      "--tool-permission <rules>",
      'tool_permission categories: edit=deny,bash=ask or a JSON object ({"bash_allow": [...]})',
    )
    .option("--type <name>", "inline an agent type's system_prompt, model and tool_permission")
    .option("--approve-model", "approve the model an agent type names (recorded in models.json)")
    .action((name: string, flags) => run("config", (a) => a.config(name, flags))());
  scoped(cmd.command("up"))
    .description("Run the supervisor in the foreground (Ctrl-C stops every agent)")
    .option("--detach", "run it as a daemon in the background instead")
    .action((flags) => run("up", (a) => a.up(flags))());
  scoped(cmd.command("down"))
    .description("Stop the supervisor and every agent")
    .action((flags) => run("down", (a) => a.down(flags))());
  scoped(cmd.command("status"))
    .description("State, health, pid, port, restarts, last exit and next retry of each agent")
    .option("--json", "print a JSON list with one object per agent")
    .action((flags) => run("status", (a) => a.status(flags))());
  scoped(cmd.command("restart [name]"))
    .description("Restart an agent, or all (the default); resets its backoff and restart count")
    .action((name: string | undefined, flags) => run("restart", (a) => a.restart(name, flags))());
  scoped(cmd.command("logs <name> [n]"))
    .description("The last n lines (default 50) of the agent's log, <dir>/.svc/logs/<name>.log")
    .option("-f, --follow", "keep printing what is appended (Ctrl-C stops)")
    .action((name: string, count: string | undefined, flags) =>
      run("logs", (a) => a.logs(name, count, flags))()
    );
  return cmd;
}
