import {
  type CallToolResult,
  McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import type { ClientInfo, ServiceSessions, ServiceTools } from "../plugin/api.ts";

/** What an MCP server is built from: the exposed tools and the saved sessions. */
export interface McpHost {
  version: string;
  tools: ServiceTools;
  sessions: ServiceSessions;
}

/** URI template of session resources. */
export const SESSION_URI = "svc://session/{name}";

/**
 * A fresh MCP server instance (both eras serve from it) for one client: every exposed tool, and
 * every saved session as the resource `svc://session/<name>`. The SDK answers the protocol;
 * arguments are validated by svc's own normalization inside `tools.call`, never by the SDK, so
 * argument aliases and coercion behave exactly as in the agent loop. Whether `client` is
 * authenticated decides whether it may confirm ask-gated calls.
 */
export function createMcpServer(host: McpHost, client: ClientInfo): McpServer {
  const server = new McpServer({ name: "svc", version: host.version }, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: "svc exposes its policy-filtered tools and its saved sessions " +
      "(resources svc://session/<name>, JSON).",
  });
  for (const tool of host.tools.list()) {
    const category = tool.category;
    server.registerTool(tool.name, {
      description: tool.description,
      inputSchema: svcValidated(tool.inputSchema),
      annotations: {
        readOnlyHint: category === "read" || category === "list",
        destructiveHint: category === "edit" || category === "bash",
        openWorldHint: category === "web" || category === "mcp",
      },
    }, async (args: unknown, ctx): Promise<CallToolResult> => {
      const result = await host.tools.call(tool.name, args, ctx.mcpReq.signal, client);
      return {
        content: [{ type: "text", text: result.content }],
        ...(result.ok ? {} : { isError: true }),
      };
    });
  }
  const list = async () => ({
    resources: (await host.sessions.list()).map((name) => ({
      uri: `svc://session/${name}`,
      name,
      mimeType: "application/json",
    })),
  });
  server.registerResource(
    "session",
    new ResourceTemplate(SESSION_URI, { list }),
    { mimeType: "application/json", description: "A saved svc session log (read-only)" },
    async (uri, variables) => {
      const name = String(variables.name ?? "");
      // Only names enumerated from the sessions folder are read: nothing else reaches the disk.
      if (!(await host.sessions.list()).includes(name)) throw new ResourceNotFoundError(uri.href);
      const data = await host.sessions.read(name);
      return {
        contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(data) }],
      };
    },
  );
  return server;
}

/**
 * A schema the SDK advertises as `inputSchema` but whose validation accepts any value: the
 * arguments are checked by `tools.call` (svc's normalizer), which reports problems as tool results.
 */
function svcValidated(schema: Record<string, unknown>): StandardSchemaWithJSON<unknown> {
  return {
    "~standard": {
      version: 1,
      vendor: "svc",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}
