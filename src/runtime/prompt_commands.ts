/**
 * The runtime's Markdown slash commands (src/catalog/commands.ts): the loaded plugins' `commands/`
 * folders, `~/.config/svc/commands/` and, in a trusted worktree, `.svc/commands/`; and the engine
 * overrides a command's front matter asks for (model, agent type, allowed tools).
 */
import { expandCommand, loadPromptCommands, type PromptCommand } from "../catalog/commands.ts";
import type { EngineOverrides } from "../engine/deps.ts";
import type { Engine } from "../engine/engine.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { agentTypeOverrides } from "./agent_type.ts";
import type { Runtime } from "./runtime.ts";

export { expandCommand, type PromptCommand };

/** The runtime's Markdown commands and the warnings about files skipped. */
export function promptCommands(
  runtime: Runtime,
): Promise<{ commands: PromptCommand[]; warnings: string[] }> {
  let globalDir: string | undefined;
  try {
    globalDir = globalConfigDir();
  } catch {
    globalDir = undefined; // HOME unusable: the runtime already warned about it
  }
  const plugins = runtime.plugins.plugins.filter((p) => p.status === "loaded");
  return loadPromptCommands({
    worktree: runtime.worktree,
    trusted: runtime.trusted,
    globalDir,
    plugins,
  });
}

/**
 * The overrides a command's turn runs with: its agent type's, its model's, and `tools.deny` for
 * every tool of `engine` it does not allow; null when it asks for none. Throws with the reason
 * when its agent type is unknown.
 */
export async function commandOverrides(
  runtime: Runtime,
  command: PromptCommand,
  options: { engine: Engine | null },
): Promise<EngineOverrides | null> {
  let overrides: EngineOverrides = {};
  if (command.agent) {
    const found = agentTypeOverrides(runtime, {
      catalog: await runtime.catalog(),
      name: command.agent,
    });
    if (found.kind === "unknown") throw new Error(`/${command.name}: ${found.message}`);
    overrides = found.overrides;
  }
  if (command.model) overrides = { ...overrides, model: command.model, modelFrom: "type" };
  if (command.allowedTools && options.engine) {
    const allowed = new Set(command.allowedTools);
    const deny = options.engine.offeredTools().map((t) => t.name).filter((n) => !allowed.has(n));
    overrides = { ...overrides, "tools.deny": [...(overrides["tools.deny"] ?? []), ...deny] };
  }
  return Object.keys(overrides).length ? overrides : null;
}
