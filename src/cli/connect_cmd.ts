import { Command } from "commander";
import type { ConnectFlags } from "./connect_action.ts";

/** `svc connect`: the shell face of the REPL's `/connect`. */
export function connectCommand(setExit: (code: number) => void): Command {
  return new Command("connect")
    .description(
      "Connect a model backend: store its API key in ~/.config/svc/providers.json (0600) and " +
        "write provider and base_url into the config (the model is never changed)",
    )
    .argument("[target]", "provider name (openai, anthropic, ...) or a URL; omitted: pick one")
    .argument("[name]", "name for a custom URL (default: derived from the host)")
    .option("--key-stdin", "read the API key from standard input instead of prompting")
    .option("--no-check", "skip the GET /v1/models probe (like connect_check: false)")
    .option("--save-anyway", "save even when the probe fails")
    .option("--global", "write provider and base_url into ~/.config/svc/config.json")
    .option("--path <dir>", "worktree whose .svc/config.json is written")
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  svc connect openai                   # prompts for the key (Enter keeps a stored one)\n" +
        "  echo $KEY | svc connect anthropic --key-stdin\n" +
        "  svc connect http://127.0.0.1:11434 ollama",
    )
    .action(async (target: string | undefined, name: string | undefined, flags: ConnectFlags) => {
      const { connect } = await import("./connect_action.ts");
      setExit(await connect(target, name, flags));
    });
}
