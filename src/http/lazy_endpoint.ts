import type { ClientInfo, HttpEndpoint } from "../plugin/api.ts";

/**
 * An endpoint built on its first request: `make` runs then, once (its module, such as the MCP
 * SDK, loads then too), and every request waits for that one build. Closing an endpoint that was
 * never built builds nothing. `svc serve` mounts POST /mcp this way, so a server, and every idle
 * fleet agent, holds the MCP layer only once a client used it (docs/performance.md).
 */
export function lazyEndpoint(make: () => Promise<HttpEndpoint>): HttpEndpoint {
  let built: Promise<HttpEndpoint> | undefined;
  return {
    fetch: async (request: Request, client?: ClientInfo) =>
      await (await (built ??= make())).fetch(request, client),
    async close() {
      if (built) await (await built).close?.();
    },
  };
}
