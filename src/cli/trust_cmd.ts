import { Command } from "commander";
import type { TrustFlags } from "./trust_action.ts";
import { exitCodeOf } from "./usage.ts";

/** `svc trust [folder]`: trust a worktree, stop trusting one, or list the trusted folders. */
export function trustCommand(setExit: (code: number) => void): Command {
  return new Command("trust")
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
        } else {
          const { trust } = await import("./trust_action.ts");
          await trust(folder, flags);
        }
      } catch (err) {
        console.error(`svc trust: ${(err as Error).message}`);
        setExit(exitCodeOf(err));
      }
    });
}
