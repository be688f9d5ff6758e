import { connectProvider, connectSummary } from "../runtime/connect.ts";
import { resolveWorktree } from "../runtime/worktree.ts";
import { USAGE_EXIT } from "./usage.ts";

/** Flags of `svc connect`. */
export interface ConnectFlags {
  keyStdin?: boolean;
  check: boolean;
  saveAnyway?: boolean;
  global?: boolean;
  path?: string;
  json?: boolean;
}

/** Runs `svc connect` (the shared connect of src/runtime/connect.ts); returns the exit code. */
export async function connect(
  target: string | undefined,
  name: string | undefined,
  options: ConnectFlags,
): Promise<number> {
  const interactive = Deno.stdin.isTerminal() && !options.keyStdin;
  if (!target && !interactive) {
    console.error("svc connect: name a provider or URL: svc connect <provider|url> [name]");
    return USAGE_EXIT;
  }
  try {
    const outcome = await connectProvider({
      target,
      name,
      worktree: resolveWorktree(options.path),
      apiKey: options.keyStdin
        ? (await new Response(Deno.stdin.readable).text()).trim()
        : undefined,
      check: options.check,
      saveAnyway: options.saveAnyway,
      global: options.global,
    }, interactive ? { pick: pickTarget, askKey, confirmSave } : {}).catch((err: Error) => {
      const hint = /nothing was saved$/.test(err.message) ? " (pass --save-anyway to keep it)" : "";
      throw new Error(`${err.message}${hint}`);
    });
    for (const warning of outcome.warnings) console.error(`warning: ${warning}`);
    if (options.json) {
      const { skipped: _s, warnings: _w, ...result } = outcome;
      console.log(JSON.stringify(result, null, 2));
    } else console.log(connectSummary(outcome));
    return 0;
  } catch (err) {
    console.error(`svc connect: ${(err as Error).message}`);
    return 1;
  }
}

async function pickTarget(choices: readonly string[]): Promise<string> {
  const { select, input } = await import("@inquirer/prompts");
  const picked = await select({
    message: "Provider",
    choices: [...choices.map((value) => ({ value })), { value: "(a URL)" }],
  });
  return picked === "(a URL)" ? await input({ message: "Base URL" }) : picked;
}

async function askKey(provider: string, stored: boolean): Promise<string> {
  const { password } = await import("@inquirer/prompts");
  return await password({
    message: `API key for ${provider}${stored ? " (Enter keeps the stored key)" : ""}`,
    mask: "*",
  });
}

async function confirmSave(error: string): Promise<boolean> {
  const { confirm } = await import("@inquirer/prompts");
  console.error(error);
  return await confirm({ message: "Save anyway?", default: false });
}
