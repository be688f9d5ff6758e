import type { Session } from "../session/session.ts";
import type { EngineDeps } from "./context_types.ts";
import type { ToolContext } from "../tool/types.ts";

/**
 * `web_search: true`: searches on every message and returns a block to inject, or null. Short
 * queries are refined from recent messages when `query_refine` is on.
 */
export async function webSearchBlock(
  prompt: string,
  deps: EngineDeps,
  session: Session,
  signal: AbortSignal,
  warn: (message: string) => void,
): Promise<string | null> {
  const tool = deps.registry.resolve("web_search");
  if (!tool) return null;
  let query = prompt.trim();
  const words = query.split(/\s+/).filter(Boolean).length;
  if (deps.config.query_refine && words < deps.config.query_refine_min_words) {
    const recent = session.data.messages
      .filter((m) => m.role === "user" || m.role === "assistant")
      .slice(-deps.config.query_refine_context - 1, -1)
      .map((m) => `${m.role}: ${(m.content ?? "").slice(0, 500)}`)
      .join("\n");
    const reply = await deps.client.chatNonStreaming({
      model: deps.model,
      max_tokens: 60,
      reasoning: deps.config.reasoning,
      messages: [
        {
          role: "system",
          content:
            "Rewrite the last message as a standalone web search query. Reply with the query only.",
        },
        { role: "user", content: `${recent}\nuser: ${query}` },
      ],
    }, signal);
    if (!reply.error && reply.content.trim()) query = reply.content.trim().split("\n")[0];
  }
  const ctx: ToolContext = {
    worktree: deps.worktree,
    signal,
    config: deps.config,
    session: session.name,
    headless: deps.headless,
    ask: () => Promise.resolve(null),
    status: () => {},
  };
  try {
    const out = await tool.run({ query }, ctx);
    if (typeof out !== "string" && out.ok === false) {
      warn(`web_search for "${query}" failed: ${out.content.slice(0, 200)}`);
      return null;
    }
    const text = typeof out === "string" ? out : out.content;
    return `Web search results for "${query}":\n${text}`;
  } catch {
    return null;
  }
}
