import { createMcpHandler, isLegacyRequest, readRequestBody } from "@modelcontextprotocol/server";
import type { ClientInfo, HttpEndpoint } from "../plugin/api.ts";
import { refuseBatch } from "./batch.ts";
import { createMcpServer, type McpHost } from "./server.ts";
import { sessionUpdateBus } from "./sessions.ts";
import { serveLegacy } from "./http_legacy.ts";
import { requestErrors, type RequestErrorSinks } from "./request_errors.ts";

/** Largest JSON-RPC body accepted on POST /mcp. */
export const MAX_MCP_BYTES = 4 * 1024 * 1024;

const NOT_POST = "Method not allowed: svc serves MCP over streamable HTTP as one JSON-RPC " +
  "request per POST; GET and DELETE session streams and the deprecated 2024-11-05 HTTP+SSE " +
  "transport are not implemented";

const ANONYMOUS: ClientInfo = { authenticated: false };

/**
 * POST /mcp: the modern revision 2026-07-28 (per-request `_meta`, SDK-validated: a missing or
 * malformed envelope is -32602) and the legacy revisions through 2025-11-25 (stateless, one
 * instance per request, `initialize` answered), chosen per request by how the client speaks.
 * JSON-RPC batches are refused (-32600) in the revisions that removed them (2025-06-18 on).
 * Closing the request (`request.signal`) or its SSE stream cancels the running call. Replies are
 * JSON, or SSE when progress or log notifications precede the result (a 2026-07-28 call that
 * sends them; a 2025-era `tools/call` whose client accepts `text/event-stream`); session updates
 * reach 2026-07-28 `subscriptions/listen` streams. Other methods get 405 with an explanation.
 * What the SDK reports while answering a request goes to `onClientError` under a 4xx reply, else
 * `onError`.
 */
export function createMcpHttpEndpoint(
  host: McpHost,
  options: RequestErrorSinks = {},
): HttpEndpoint {
  const errors = requestErrors(options);
  const updates = sessionUpdateBus(host.sessions, errors.report);
  // One modern handler per kind of client: the factory then knows whether its client may
  // confirm ask-gated calls without svc handing the SDK an auth object it does not use.
  const modern = new Map<boolean, ReturnType<typeof createMcpHandler>>();
  const modernFor = (client: ClientInfo) => {
    let handler = modern.get(client.authenticated);
    if (!handler) {
      const fixed = { authenticated: client.authenticated };
      handler = createMcpHandler(({ era }) => createMcpServer(host, { client: fixed, era }), {
        legacy: "reject",
        bus: updates.bus(),
        responseMode: "auto",
        maxRequestBodySize: MAX_MCP_BYTES,
        maxSubscriptions: 16,
        onerror: errors.report,
      });
      modern.set(client.authenticated, handler);
    }
    return handler;
  };
  return {
    fetch: (request, client = ANONYMOUS) =>
      errors.around(async () => {
        if (request.method !== "POST") return rpcError(405, -32000, NOT_POST, { allow: "POST" });
        const read = await readRequestBody(request, MAX_MCP_BYTES);
        if (read.tooLarge) return rpcError(413, -32000, "Payload too large");
        let body: unknown;
        try {
          body = JSON.parse(read.text);
        } catch {
          return rpcError(400, -32700, "Parse error: the body is not valid JSON");
        }
        const batch = refuseBatch(body, request.headers.get("mcp-protocol-version"));
        if (batch) return rpcError(400, -32600, batch);
        if (await isLegacyRequest(request, body)) {
          return await serveLegacy(host, request, { body, client, onError: errors.report });
        }
        return await modernFor(client).fetch(request, { parsedBody: body });
      }),
    async close() {
      updates.stop();
      await Promise.all([...modern.values()].map((handler) => handler.close()));
    },
  };
}

function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}
