import { invokeTool } from "../tool/invoke.ts";
import { type CallEnv, engineInvokeEnv } from "./calls.ts";
import { cutText } from "../util/text_cut.ts";

/**
 * `web_search: true`: searches on every message and returns a block to inject, or null. The
 * search is a web_search call through the one invocation path, so tools.deny, the web category
 * and approvals apply, and it lands in the session's permissions audit. Short queries are
 * refined from recent messages when `query_refine` is on.
 */
export async function webSearchBlock(prompt: string, env: CallEnv): Promise<string | null> {
  const { session } = env;
  const tool = env.view.resolve("web_search");
  if (!tool) return null;
  const query = await refineQuery(prompt.trim(), env);
  env.emit({ type: "status", message: `web_search: ${query}` });
  const inv = await invokeTool(
    {
      id: `web_search_inject_${crypto.randomUUID().slice(0, 8)}`,
      name: tool.name,
      arguments: JSON.stringify({ query }),
    },
    {
      ...engineInvokeEnv(env, (inv) => session.appendPermission(inv.audit)),
      // The policy judges the injection by its own rules even when tools are not offered.
      offered: env.view.list().map((t) => t.name),
    },
  );
  if (!inv.ok) {
    const why = inv.decision === "allow" ? "failed" : `was not run (${inv.audit.reason})`;
    env.emit({
      type: "warning",
      message: `web_search for "${query}" ${why}: ${cutText(inv.content, 200)}`,
    });
    return null;
  }
  return `Web search results for "${query}":\n${inv.content}`;
}

/** A short query rewritten as a standalone one from recent messages (query_refine). */
async function refineQuery(query: string, env: CallEnv): Promise<string> {
  const { config, client, model } = env.deps;
  const words = query.split(/\s+/).filter(Boolean).length;
  if (!config.query_refine || words >= config.query_refine_min_words) return query;
  const recent = env.session.data.messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .slice(-config.query_refine_context - 1, -1)
    .map((m) => `${m.role}: ${cutText(m.content ?? "", 500)}`)
    .join("\n");
  const reply = await client.chatNonStreaming({
    model,
    max_tokens: 60,
    reasoning: config.reasoning,
    messages: [
      {
        role: "system",
        content:
          "Rewrite the last message as a standalone web search query. Reply with the query only.",
      },
      { role: "user", content: `${recent}\nuser: ${query}` },
    ],
  }, env.signal);
  return !reply.error && reply.content.trim() ? reply.content.trim().split("\n")[0] : query;
}
