import type { Zod } from "../tool/arg_schema.ts";
import type { AskRequest, Tool } from "../tool/types.ts";
import type { Lead } from "./deps.ts";

/** The result when no one can answer (a headless root engine). */
export const NO_ONE_TO_ANSWER =
  "Error: ask has no one to answer (this run is headless); decide yourself and say what you assumed";

/** The `ask` tool: a question to the operator, or to the lead agent of a sub-agent. */
export const askTool: Tool = {
  name: "ask",
  category: "ask",
  description:
    "Ask a question and wait for the answer: target human (default) asks the operator, lead the " +
    "agent that delegated your task. Only when you cannot go on without it.",
  schema: (z: Zod) =>
    z.object({
      question: z.string().min(1),
      context: z.string().optional(),
      options: z.array(z.string()).optional(),
      target: z.enum(["human", "lead"]).optional(),
    }),
  async run(args, ctx) {
    const request: AskRequest = {
      question: String(args.question),
      context: args.context as string | undefined,
      options: args.options as string[] | undefined,
      target: (args.target as "human" | "lead" | undefined) ?? "human",
    };
    const answer = await ctx.ask(request);
    if (answer === null) return { content: NO_ONE_TO_ANSWER, ok: false };
    return answer;
  },
};

/** Consults the lead's model with a bounded non-streaming call that includes the delegated task. */
export async function askLead(
  lead: Lead,
  request: AskRequest,
  { signal }: { signal: AbortSignal },
): Promise<string | null> {
  const reply = await lead.client.chatNonStreaming({
    model: lead.model,
    max_tokens: 1024,
    reasoning: lead.reasoning,
    messages: [
      {
        role: "system",
        content: "You delegated a task to a sub-agent. Answer its question briefly and decisively.",
      },
      {
        role: "user",
        content: `Delegated task:\n${lead.task}\n\nQuestion: ${request.question}${
          request.context ? `\nContext: ${request.context}` : ""
        }${request.options?.length ? `\nOptions: ${request.options.join(" | ")}` : ""}`,
      },
    ],
  }, signal);
  return reply.error || !reply.content.trim() ? null : reply.content.trim();
}
