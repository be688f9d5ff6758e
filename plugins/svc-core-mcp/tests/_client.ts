/**
 * An engine with the real svc-core-mcp plugin loaded, driven by the scripted fake provider: each
 * `call` is one turn in which the model calls one tool, so tools connected by one call are
 * offered to the next, as in a conversation.
 */
import { type Harness, harness } from "../../../tests/_support/engine.ts";
import type { Reply } from "../../../tests/_support/fake_provider.ts";
import { loadPlugins } from "../../../src/plugin/load.ts";
import type { SessionLog } from "../../../src/session/log.ts";
import { clientsFor, type McpClients } from "../src/client/clients.ts";

export interface McpTest {
  h: Harness;
  clients: McpClients;
  /** One turn whose model calls `name` (a wire or canonical name); the tool message it got. */
  call(name: string, args?: Record<string, unknown>): Promise<{ content: string; ok: boolean }>;
  /** Function names offered in the latest request. */
  offered(): string[];
  [Symbol.asyncDispose](): Promise<void>;
}

export async function mcpTest(
  servers: unknown[],
  options: { config?: Record<string, unknown>; files?: Record<string, string> } = {},
): Promise<McpTest> {
  const queue: Reply[] = [];
  const scratch = await Deno.makeTempDir({ prefix: "svc-mcp-plugins-" });
  const plugins = await loadPlugins({
    names: ["svc-core-mcp"],
    trustLocal: false,
    worktree: scratch,
  });
  const h = await harness((_body, _index) => queue.shift() ?? { text: "done" }, {
    plugins,
    tools: [],
    files: options.files,
    config: {
      tool_permission: { mcp: "allow" },
      "mcp.servers": servers,
      ...options.config,
    },
  });
  const clients = clientsFor(h.runtime.added.host("svc-core-mcp"), h.worktree);
  const session: SessionLog = h.store.create("mcp-test");
  return {
    h,
    clients,
    async call(name, args = {}) {
      queue.push({ tool_calls: [{ name, arguments: args }] }, { text: "done" });
      await h.engine.runTurn(`call ${name}`, { session });
      const message = session.data.messages.filter((m) => m.role === "tool").at(-1)!;
      return { content: message.content ?? "", ok: message.ok !== false };
    },
    offered() {
      const body = h.fake.requests.at(-1)?.body;
      return (body?.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
    },
    async [Symbol.asyncDispose]() {
      await clients.closeAll();
      await h[Symbol.asyncDispose]();
      await Deno.remove(scratch, { recursive: true });
    },
  };
}
