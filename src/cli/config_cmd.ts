import { Command } from "commander";
import type { ConfigScope } from "./config_action.ts";

/** `svc config`: list, get, set, unset and locate configuration keys. */
export function configCommand(setExit: (code: number) => void): Command {
  const run = (name: "list" | "get" | "set" | "unset" | "path", ...args: unknown[]) => async () => {
    try {
      const actions = await import("./config_action.ts");
      await (actions[name] as (...a: unknown[]) => Promise<void>)(...args);
    } catch (err) {
      console.error(`svc config: ${(err as Error).message}`);
      setExit(1);
    }
  };
  const cmd = new Command("config").description(
    "Read and write configuration (local .svc/config.json by default, --global for ~/.config/svc)",
  );
  const scoped = (c: Command) =>
    c.option("--global", "use the global file ~/.config/svc/config.json")
      .option("--path <dir>", "worktree (default: the current directory)")
      .option("--json", "print JSON");
  scoped(cmd.command("list").description("effective configuration, defaults applied"))
    .action((flags: ConfigScope) => run("list", flags)());
  scoped(cmd.command("get <key>").description("effective value of one key"))
    .action((key: string, flags: ConfigScope) => run("get", key, flags)());
  scoped(cmd.command("set <key> <value>").description("set a key (JSON values are parsed)"))
    .action((key: string, value: string, flags: ConfigScope) => run("set", key, value, flags)());
  scoped(cmd.command("unset <key>").description("remove a key from the file"))
    .action((key: string, flags: ConfigScope) => run("unset", key, flags)());
  scoped(cmd.command("path").description("paths of the two files"))
    .action((flags: ConfigScope) => run("path", flags)());
  return cmd;
}
