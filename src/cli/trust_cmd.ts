import { Command } from "commander";
import type { TrustFlags } from "./trust_action.ts";
import { exitCodeOf } from "./usage.ts";

/**
 * `svc trust [folder]`: trust a worktree, stop trusting one, or list the trusted folders; also as
 * the subcommands `svc trust list` and `svc trust remove <folder>` (a folder named `list` or
 * `remove` is written `./list`).
 */
export function trustCommand(setExit: (code: number) => void): Command {
  const run = async (folder: string | undefined, flags: TrustFlags) => {
    try {
      const { trust } = await import("./trust_action.ts");
      await trust(folder, flags);
    } catch (err) {
      console.error(`svc trust: ${(err as Error).message}`);
      setExit(exitCodeOf(err));
    }
  };
  // `--json` is `svc trust`'s option wherever it is written: read with the parent's options.
  const json = (command: Command) => Boolean(command.optsWithGlobals().json);
  const list = new Command("list")
    .description("List the trusted folders (the same as svc trust --list)")
    .option("--json", "print JSON")
    .action((_flags, command: Command) => run(undefined, { list: true, json: json(command) }));
  const remove = new Command("remove")
    .description("Stop trusting a folder (the same as svc trust --remove <folder>)")
    .argument("<folder>", "the trusted folder")
    .option("--json", "print JSON")
    .action((folder: string, _flags, command: Command) =>
      run(folder, { remove: true, json: json(command) })
    );
  return new Command("trust")
    .addCommand(list)
    .addCommand(remove)
    .description(
      "Trust a worktree (default: the current folder): its .svc/config.json may then loosen the " +
        "permission policy and its .svc/plugins load. Untrusted worktrees may only tighten it.",
    )
    .argument("[folder]", "the folder to trust; folders inside it are trusted too")
    .option("--remove", "stop trusting the folder")
    .option("--list", "list the trusted folders")
    .option(
      "--mcp [server]",
      "approve the stdio MCP server the folder's .svc/config.json names (with --remove: " +
        "revoke; with --list: list approvals)",
    )
    .option("--json", "print JSON")
    .action(async (folder: string | undefined, flags: TrustFlags & { mcp?: string | true }) => {
      try {
        if (flags.mcp !== undefined) {
          const { trustMcp } = await import("./trust_mcp.ts");
          await trustMcp(folder, { ...flags, mcp: flags.mcp });
        } else await run(folder, flags);
      } catch (err) {
        console.error(`svc trust: ${(err as Error).message}`);
        setExit(exitCodeOf(err));
      }
    });
}
