/**
 * Custom slash commands from Markdown files (src/runtime/prompt_commands.ts): `/<name> [args]`
 * sends the file's prompt, its `$ARGUMENTS` and `$1`.. filled in, as a turn run with the model,
 * agent type and allowed tools its front matter names. A name a built-in or plugin command
 * already has is left out with a warning.
 */
import type { PromptCommand } from "../runtime/prompt_commands.ts";
import { type Command, findCommand } from "./slash_command.ts";

/** The commands of `defs` that do not clash with `taken`, and a warning for each that does. */
export function customCommands(
  defs: readonly PromptCommand[],
  taken: readonly Command[],
): { commands: Command[]; skipped: string[] } {
  const commands: Command[] = [];
  const skipped: string[] = [];
  for (const def of defs) {
    if (findCommand(taken, def.name)) {
      skipped.push(
        `custom command /${def.name} (${def.path}) is not added: a command of that name exists`,
      );
      continue;
    }
    const from = def.layer === "plugin" ? `plugin ${def.plugin}` : `${def.layer} command`;
    const extras = [
      def.model ? `model: ${def.model}` : "",
      def.agent ? `agent type: ${def.agent}` : "",
      def.allowedTools ? `allowed tools: ${def.allowedTools.join(", ") || "none"}` : "",
    ].filter(Boolean);
    commands.push({
      name: def.name,
      usage: `/${def.name}${def.argumentHint ? ` ${def.argumentHint}` : ""}`,
      summary: def.description ?? `send the prompt of ${def.path}`,
      details: [`from ${def.path} (${from})`, ...extras].join("\n"),
      path: def.path,
      ...(def.plugin ? { plugin: def.plugin } : {}),
      async run(ctx, args) {
        const { commandOverrides, expandCommand } = await import("../runtime/prompt_commands.ts");
        let overrides;
        try {
          overrides = await commandOverrides(ctx.runtime, def, { engine: ctx.engine });
        } catch (err) {
          return ctx.error((err as Error).message);
        }
        await ctx.prompt(expandCommand(def.body, args), overrides);
      },
    });
  }
  return { commands, skipped };
}
