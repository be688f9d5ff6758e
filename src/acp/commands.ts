/**
 * svc's slash commands in an editor: advertised with `available_commands_update` and run when a
 * prompt starts with one. Only those that make sense without svc's terminal are offered:
 * `/compact`, `/mode`, `/model`, `/undo` and `/help`; their answer is an agent message.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { turnLine, undoSession } from "../runtime/undo.ts";
import type { AcpSession } from "./session.ts";

interface SlashCommand extends acp.AvailableCommand {
  run(session: AcpSession, args: string, signal: AbortSignal): Promise<string>;
}

const COMMANDS: SlashCommand[] = [
  {
    name: "compact",
    description: "Summarize the conversation so far (the session file keeps everything)",
    async run(session, _args, signal) {
      const engine = await session.engine();
      const result = await engine.compact(session.session, signal, { trigger: "manual" });
      return result.ok
        ? `compacted: ${result.summarized} messages summarized, ${result.kept} kept`
        : `compact: ${result.message}`;
    },
  },
  {
    name: "mode",
    description: "Switch between plan (read and plan only) and build",
    input: { hint: "plan | build" },
    run(session, args) {
      const mode = args.trim();
      if (mode !== "plan" && mode !== "build") {
        return Promise.resolve(`usage: /mode plan|build (now ${session.mode})`);
      }
      session.configure({ mode });
      session.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
      return Promise.resolve(`mode: ${mode}`);
    },
  },
  {
    name: "model",
    description: "Use another model from the next turn on (a model id, or provider/model)",
    input: { hint: "model id" },
    async run(session, args) {
      const model = args.trim();
      if (!model) return `model: ${(await session.engine()).deps.model}`;
      session.configure({ model });
      try {
        return `model: ${(await session.engine()).deps.model}`;
      } catch (err) {
        return `model ${model} cannot be used: ${(err as Error).message}`;
      }
    },
  },
  {
    name: "undo",
    description: "Restore the files the last turn changed",
    async run(session) {
      const report = await undoSession(session.runtime.worktree, session.session);
      return report.turns.map(turnLine).join("\n") || "nothing to undo";
    },
  },
  {
    name: "help",
    description: "List these commands",
    run() {
      return Promise.resolve(COMMANDS.map((c) => `/${c.name}: ${c.description}`).join("\n"));
    },
  },
];

/** The commands as the editor lists them. */
export function availableCommands(): acp.AvailableCommand[] {
  return COMMANDS.map(({ name, description, input }) => ({
    name,
    description,
    ...(input ? { input } : {}),
  }));
}

/** The command a prompt starts with (`/name args`), or undefined for an ordinary prompt. */
export function slashCommand(
  prompt: string,
): { command: SlashCommand; args: string } | undefined {
  const match = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  const command = match && COMMANDS.find((c) => c.name === match[1]);
  return command ? { command, args: match![2] ?? "" } : undefined;
}
