import { Command, Option } from "commander";
import type { RunFlags } from "./run_action.ts";

/** Collects a repeatable option into a list, each value whole (a path may hold commas). */
function repeated(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `svc run`: one headless turn, streamed as text or printed as a TurnResult. */
export function runCommand(setExit: (code: number) => void): Command {
  return new Command("run")
    .description("Run one prompt headlessly and exit (never reads stdin unless --prompt -)")
    .option("-p, --prompt <text>", "the prompt; - reads it from standard input")
    .option(
      "--image <file>",
      "send an image with the prompt (PNG, JPEG, GIF or WebP, at most 5 MiB; repeatable, up " +
        "to 8; the model must take images: docs/providers.md#images)",
      repeated,
    )
    .option("--provider <id>", "provider id (openai, anthropic, openrouter, generic, ...)")
    .option("--model <model>", "model id or provider/model ref (auto-approved)")
    .option("--base-url <url>", "backend address (the provider is detected from it)")
    .addOption(
      new Option("--output <format>", "output format (stream-json: one JSON object per line)")
        .choices(["text", "json", "stream-json"]).default("text"),
    )
    .option(
      "--include-partial-messages",
      "with --output stream-json: also text and thinking deltas as stream_event lines",
    )
    .option(
      "--json-schema <schema>",
      "the answer must be JSON valid against this JSON Schema (inline JSON or @file); stdout is the JSON",
    )
    .option("--output-schema <file>", "--json-schema read from a file (Codex's name)")
    .option(
      "--json-retries <n>",
      "repair requests after an answer that does not validate (default 2)",
    )
    .option("--max-turns <n>", "end the turn (truncated) after n model rounds (1-64)")
    .option("--max-tokens-total <n>", "end the turn once prompt+completion tokens reach n")
    .option("--max-cost <usd>", "end the turn once its cost reaches this many US dollars")
    .option("--verbose", "show thinking, tool results, status lines and usage on stderr")
    .option("--session-id <name>", "load or create this persistent session")
    .option("-c, --continue", "continue the worktree's most recent session")
    .option("-r, --resume <session>", "continue a saved session (its name or a unique prefix)")
    .option("--fork <session>", "start a new session from a copy of a saved one's history")
    .option("--fork-at <turn>", "with --fork: copy the history up to this turn (default all)")
    .option("--yes", "approve ask-gated tool calls")
    .option("--no", "deny ask-gated tool calls explicitly (the default when headless)")
    .option(
      "--permission-prompt-tool <tool>",
      "an MCP tool that answers ask-gated calls (mcp__<server>__<tool>; docs/hooks.md)",
    )
    .option("--type <name>", "run the prompt as this agent type (svc types list)")
    .option("--team <name>", "run the prompt as a team's task, stage by stage (svc teams list)")
    .option("--approve-model", "approve a model named by an agent type or team")
    .option("--path <dir>", "worktree (default: the current directory)")
    .argument("[prompt...]", "the prompt, when --prompt is not given")
    .addHelpText(
      "after",
      "\nEach run starts svc afresh and ends with the command. A script that sends many prompts\n" +
        "can keep one svc instead: svc serve and POST /chat (docs/serving.md), or the REPL (svc).",
    )
    .action(async (words: string[], flags: RunFlags) => {
      const { runOnce } = await import("./run_action.ts");
      setExit(await runOnce(words, flags));
    });
}
