import type {
  CallToolResult,
  McpServer,
  ServerContext,
  StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import type {
  ClientInfo,
  ServiceCallObserver,
  ServiceToolInfo,
  ServiceTools,
} from "../plugin/api.ts";

/**
 * Registers every exposed tool on `server`. Arguments are validated by svc's own normalization
 * inside `tools.call`, never by the SDK, so argument aliases and coercion behave exactly as in the
 * agent loop. While a call runs, what the tool reports reaches the client: each activity line
 * (run_command's latest output line) as `notifications/progress` when the request carries a
 * progress token, and as an `info` log message; hook warnings as `warning` log messages; a failed
 * call ends with an `error` log message. Log messages respect the client's level (the SDK filters
 * them: `logging/setLevel` in the 2025 revisions, the request's log level in 2026-07-28).
 */
export function registerTools(
  server: McpServer,
  { tools, client }: { tools: ServiceTools; client: ClientInfo },
): void {
  for (const tool of tools.list()) {
    server.registerTool(tool.name, {
      description: tool.description,
      inputSchema: svcValidated(tool.inputSchema),
      annotations: annotations(tool),
    }, async (args: unknown, ctx): Promise<CallToolResult> => {
      const observer = callObserver(tool.name, ctx);
      const result = await tools.call(tool.name, args, ctx.mcpReq.signal, client, observer);
      if (!result.ok) await quietly(ctx.mcpReq.log("error", result.content, tool.name));
      const images = (result.images ?? []).map(({ data, mimeType }) => ({
        type: "image" as const,
        data,
        mimeType,
      }));
      return {
        content: [{ type: "text", text: result.content }, ...images],
        ...(result.ok ? {} : { isError: true }),
      };
    });
  }
}

/** Progress and log notifications of one call, sent on the request's own channel. */
function callObserver(tool: string, ctx: ServerContext): ServiceCallObserver {
  const token = ctx.mcpReq._meta?.progressToken;
  let progress = 0;
  return {
    status(line) {
      if (ctx.mcpReq.signal.aborted) return;
      if (token !== undefined) {
        progress += 1;
        void quietly(ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress, message: line },
        }));
      }
      void quietly(ctx.mcpReq.log("info", line, tool));
    },
    warning(message) {
      if (!ctx.mcpReq.signal.aborted) void quietly(ctx.mcpReq.log("warning", message, tool));
    },
  };
}

/** A notification that cannot be sent (the client went away) does not fail the call. */
async function quietly(sent: Promise<void>): Promise<void> {
  try {
    await sent;
  } catch {
    // the exchange is closed: nobody is listening
  }
}

function annotations(tool: ServiceToolInfo) {
  const category = tool.category;
  return {
    readOnlyHint: category === "read" || category === "list",
    destructiveHint: category === "edit" || category === "bash",
    openWorldHint: category === "web" || category === "mcp",
  };
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
