import { Command, Option } from "commander";
import type { EvalListFlags, EvalRunFlags } from "./eval_action.ts";

/** Collects a repeatable, comma-separated flag. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];
}

/** `svc eval`: list the fixtures, run them against one model or compare several. */
export function evalCommand(setExit: (code: number) => void): Command {
  const cmd = new Command("eval").description(
    "Tool-use evaluation: run fixtures in isolated temporary worktrees and score the model",
  );
  cmd.command("list")
    .description("List the fixtures (bundled plugin, ~/.config/svc/eval, .svc/eval; local wins)")
    .addOption(
      new Option("--output <format>", "output format").choices(["table", "json"]).default("table"),
    )
    .option("--path <dir>", "worktree whose .svc/eval is read (default: the current directory)")
    .action(async (flags: EvalListFlags) => {
      const { listFixtures } = await import("./eval_action.ts");
      setExit(await listFixtures(flags));
    });
  cmd.command("run")
    .description(
      "Run fixtures and print a table or JSON report; exit 0 when every fixture passed every trial",
    )
    .addOption(
      new Option("--fixture <ids>", "fixture ids, comma-separated or repeated")
        .argParser(collect)
        .default([], "all"),
    )
    .option("--provider <id>", "provider id (openai, anthropic, openrouter, generic, ...)")
    .option("--model <model>", "model id or provider/model ref (auto-approved)")
    .option("--base-url <url>", "backend address (the provider is detected from it)")
    .option("--compare <models>", "comma-separated models run on the same fixtures and repeats")
    .addOption(
      new Option("--output <format>", "output format").choices(["table", "json"]).default("table"),
    )
    .option("--repeats <k>", "trials per fixture and model", "3")
    .option("--max-rounds <n>", "rounds of tool calls a trial may take", "10")
    .option("--timeout <seconds>", "wall-clock limit of one trial", "120")
    .option("--report <dir>", "folder for report.json and transcripts (default: a new temp folder)")
    .option(
      "--path <dir>",
      "worktree whose config and .svc/eval apply (default: current directory)",
    )
    .action(async (flags: EvalRunFlags) => {
      const { runEvalCommand } = await import("./eval_action.ts");
      setExit(await runEvalCommand(flags));
    });
  return cmd;
}
