import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { ClientInfo } from "../plugin/api.ts";
import { createMcpServer, type McpHost } from "./server.ts";

/**
 * One 2025-era request to POST /mcp on a fresh stateless instance: plain JSON, or SSE for a
 * `tools/call` whose client accepts `text/event-stream` (progress and log notifications, then the
 * result). A client that goes away closes the instance, which cancels its running call.
 */
export async function serveLegacy(
  host: McpHost,
  request: Request,
  { body, client, onError }: { body: unknown; client: ClientInfo; onError: (e: Error) => void },
): Promise<Response> {
  const server = createMcpServer(host, {
    client: { authenticated: client.authenticated },
    era: "legacy",
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !streamsProgress(request, body),
  });
  transport.onerror = onError;
  await server.connect(transport);
  // The SDK's JSON reply never comes for a cancelled call, so a hang-up ends the exchange here
  // (nobody reads the answer).
  let hangUp!: () => void;
  const gone = new Promise<Response>((resolve) => {
    hangUp = () => {
      void server.close().catch(() => {});
      resolve(new Response(null, { status: 499 }));
    };
  });
  request.signal.addEventListener("abort", hangUp, { once: true });
  if (request.signal.aborted) hangUp();
  const end = async () => {
    request.signal.removeEventListener("abort", hangUp);
    await transport.close().catch(() => {});
    await server.close().catch(() => {});
  };
  let response: Response;
  try {
    response = await Promise.race([transport.handleRequest(request, { parsedBody: body }), gone]);
  } catch (err) {
    await end();
    throw err;
  }
  if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream")) {
    await end();
    return response;
  }
  // A streamed answer: the instance lives until the SDK ends the stream after the result.
  const ended = new TransformStream<Uint8Array, Uint8Array>({ flush: () => end() });
  return new Response(response.body.pipeThrough(ended), response);
}

/**
 * Whether a 2025-era answer is streamed (SSE): a `tools/call` from a client that accepts
 * `text/event-stream`, so that progress and log notifications can precede the result. Everything
 * else is answered as plain JSON.
 */
function streamsProgress(request: Request, body: unknown): boolean {
  const accept = request.headers.get("accept") ?? "";
  const method = body && typeof body === "object" ? (body as { method?: unknown }).method : null;
  return method === "tools/call" && accept.includes("text/event-stream");
}
