import { Command, Option } from "commander";
import type { TurnResult } from "../engine/events.ts";

/** Flags of `svc run`. */
export interface RunFlags {
  prompt?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  output: "json" | "text";
  verbose?: boolean;
  sessionId?: string;
  yes?: boolean;
  no?: boolean;
  approveModel?: boolean;
  path?: string;
}

/** Exit code of `svc run` for a turn status. */
export function exitCodeFor(status: TurnResult["status"]): number {
  if (status === "ok" || status === "truncated") return 0;
  if (status === "cancelled") return 130;
  return 1;
}

/** `svc run`: one headless turn, streamed as text or printed as a TurnResult. */
export function runCommand(setExit: (code: number) => void): Command {
  return new Command("run")
    .description("Run one prompt headlessly and exit (never reads stdin unless --prompt -)")
    .option("-p, --prompt <text>", "the prompt; - reads it from standard input")
    .option("--provider <id>", "provider id (openai, anthropic, openrouter, generic, ...)")
    .option("--model <model>", "model id or provider/model ref (auto-approved)")
    .option("--base-url <url>", "backend address (the provider is detected from it)")
    .addOption(
      new Option("--output <format>", "output format").choices(["text", "json"]).default("text"),
    )
    .option("--verbose", "show thinking, tool results and status lines on stderr")
    .option("--session-id <name>", "load or create this persistent session")
    .option("--yes", "approve ask-gated tool calls")
    .option("--no", "deny ask-gated tool calls explicitly (the default when headless)")
    .option("--approve-model", "approve a model named by an agent type or team")
    .option("--path <dir>", "worktree (default: the current directory)")
    .argument("[prompt...]", "the prompt, when --prompt is not given")
    .action(async (words: string[], flags: RunFlags) => {
      const { runOnce } = await import("./run_action.ts");
      setExit(await runOnce(words, flags));
    });
}
