import {
  completable,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import * as z from "zod";
import type { PromptKind, ServedPrompts } from "../runtime/served_prompts.ts";

/** Largest number of names one completion answers (the protocol's limit is 100). */
const MAX_COMPLETIONS = 100;

/**
 * The catalogs as three prompts, each naming its entry in a completable argument: `agent_type`
 * (an agent type's system prompt with its skills, then the task), `skill` (a skill's text) and
 * `team` (a team's stages as a brief, then the task). The catalog is loaded once per runtime and
 * never reloaded while serving, so the prompt list cannot change: no `list_changed` is sent.
 */
export function registerPrompts(server: McpServer, prompts: ServedPrompts): void {
  const name = (kind: PromptKind, what: string) =>
    completable(z.string().describe(what), async (value) => {
      const names = await prompts.names(kind);
      return names.filter((n) => n.startsWith(value ?? "")).slice(0, MAX_COMPLETIONS);
    });
  const task = z.string().describe("what the agent should do");
  server.registerPrompt("agent_type", {
    title: "svc agent type",
    description: "An svc agent type's system prompt (with its skills) followed by a task",
    argsSchema: z.object({ type: name("types", "the agent type's name"), task }),
  }, async ({ type, task }) => await messages(prompts, "types", { name: type, task }));
  server.registerPrompt("skill", {
    title: "svc skill",
    description: "The text of one of svc's skills",
    argsSchema: z.object({ name: name("skills", "the skill's name") }),
  }, async ({ name }) => await messages(prompts, "skills", { name }));
  server.registerPrompt("team", {
    title: "svc team",
    description: "An svc team's stages as a brief followed by a task",
    argsSchema: z.object({ team: name("teams", "the team's name"), task }),
  }, async ({ team, task }) => await messages(prompts, "teams", { name: team, task }));
}

/** The prompt's one user message; an unknown entry is -32602 naming the ones there are. */
async function messages(
  prompts: ServedPrompts,
  kind: PromptKind,
  entry: { name: string; task?: string },
) {
  const found = await prompts.text(kind, entry);
  if (!found.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, found.message);
  return {
    description: found.description,
    messages: [{ role: "user" as const, content: { type: "text" as const, text: found.text } }],
  };
}
