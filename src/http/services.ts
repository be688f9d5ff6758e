import type { HttpEndpoint, ServiceContext, ServiceDef } from "../plugin/api.ts";

/** Paths a service can never take over. */
const CORE_PATHS = new Set(["/chat", "/sessions", "/health", "/version", "/approvals"]);

/**
 * Builds the endpoints of plugin services that declare `http`, by exact path. A service whose
 * path is not absolute, is a core route or is already taken is skipped with a warning, as is one
 * whose `create` throws.
 */
export async function mountServices(
  services: readonly ServiceDef[],
  { ctx, warn }: { ctx: ServiceContext; warn: (message: string) => void },
): Promise<Map<string, HttpEndpoint>> {
  const endpoints = new Map<string, HttpEndpoint>();
  for (const service of services) {
    const http = service.http;
    if (!http) continue;
    const path = http.path;
    if (typeof path !== "string" || !path.startsWith("/") || CORE_PATHS.has(path)) {
      warn(`service ${service.name}: path ${String(path)} cannot be mounted`);
      continue;
    }
    if (endpoints.has(path)) {
      warn(`service ${service.name}: ${path} is already mounted by another service`);
      continue;
    }
    try {
      if (http.create) endpoints.set(path, await http.create(ctx));
      else if (http.handler) endpoints.set(path, { fetch: (r) => http.handler!(r) });
      else warn(`service ${service.name}: http needs a handler or create`);
    } catch (err) {
      warn(`service ${service.name}: create failed: ${(err as Error).message}`);
    }
  }
  return endpoints;
}

/** Closes every endpoint that has `close`, ignoring failures. */
export async function closeEndpoints(endpoints: ReadonlyMap<string, HttpEndpoint>): Promise<void> {
  await Promise.all([...endpoints.values()].map((e) => e.close?.().catch(() => {})));
}
