import { Command } from "commander";

/** Flags of `svc acp`. */
interface AcpFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/** `svc acp`: svc as an Agent Client Protocol agent for editors; stdout carries only JSON-RPC. */
export function acpCommand(setExit: (code: number) => void): Command {
  return new Command("acp")
    .description(
      "Serve svc to an editor over the Agent Client Protocol on stdio (Zed, Neovim, JetBrains, " +
        "Emacs; docs/acp.md). The editor starts it; each session's worktree is the editor's cwd.",
    )
    .option("--provider <id>", "provider for every session (default: the config's)")
    .option("--model <model>", "model for every session (default: the config's)")
    .option("--base-url <url>", "OpenAI-compatible base address for every session")
    .action(async (flags: AcpFlags) => setExit(await serveAcp(flags)));
}

/** Loads the ACP modules only when serving: the SDK is not needed by other commands. */
async function serveAcp(flags: AcpFlags): Promise<number> {
  // stdout is the JSON-RPC channel: console output that would reach it goes to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const { serveAcpStdio } = await import("../acp/mod.ts");
  const connection = serveAcpStdio({
    init: { provider: flags.provider, model: flags.model, baseUrl: flags.baseUrl },
    log: (message) => console.error(`svc acp: ${message}`),
  });
  const stop = () => connection.close();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  try {
    await connection.closed;
  } catch (err) {
    console.error(`svc acp: ${(err as Error).message}`);
    return 1;
  } finally {
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
  }
  return 0;
}
