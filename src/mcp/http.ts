import {
  createMcpHandler,
  isLegacyRequest,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { HttpEndpoint } from "../plugin/api.ts";
import { createMcpServer, type McpHost } from "./server.ts";

/** Largest JSON-RPC body accepted on POST /mcp. */
export const MAX_MCP_BYTES = 4 * 1024 * 1024;

const NOT_POST = "Method not allowed: svc serves MCP over streamable HTTP as one JSON-RPC " +
  "request per POST; GET and DELETE session streams and the deprecated 2024-11-05 HTTP+SSE " +
  "transport are not implemented";

/**
 * POST /mcp: the modern revision 2026-07-28 (per-request `_meta`, SDK-validated: a missing or
 * malformed envelope is -32602) and the legacy revisions through 2025-11-25 (stateless, one
 * instance per request, `initialize` answered), chosen per request by how the client speaks.
 * Replies are JSON; other methods get 405 with an explanation.
 */
export function createMcpHttpEndpoint(
  host: McpHost,
  options: { onError?: (error: Error) => void } = {},
): HttpEndpoint {
  const factory = () => createMcpServer(host);
  const modern = createMcpHandler(factory, {
    legacy: "reject",
    responseMode: "auto",
    maxRequestBodySize: MAX_MCP_BYTES,
    maxSubscriptions: 16,
    onerror: options.onError,
  });
  return {
    async fetch(request) {
      if (request.method !== "POST") return rpcError(405, -32000, NOT_POST, { allow: "POST" });
      const read = await readRequestBody(request, MAX_MCP_BYTES);
      if (read.tooLarge) return rpcError(413, -32000, "Payload too large");
      let body: unknown;
      try {
        body = JSON.parse(read.text);
      } catch {
        return rpcError(400, -32700, "Parse error: the body is not valid JSON");
      }
      if (await isLegacyRequest(request, body)) return await serveLegacy(request, body);
      return await modern.fetch(request, { parsedBody: body });
    },
    close: () => modern.close(),
  };

  /** One 2025-era request on a fresh stateless instance, answered as plain JSON. */
  async function serveLegacy(request: Request, body: unknown): Promise<Response> {
    const server = factory();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    transport.onerror = options.onError;
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body });
    } finally {
      await transport.close().catch(() => {});
      await server.close().catch(() => {});
    }
  }
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
