/**
 * The routes kept outside handler.ts, each a `(request, { path, app })` function that answers or
 * returns undefined (not mine). The handler consults them after its guard (Host, Origin, token)
 * and before its own routes; a GET route of theirs answers HEAD too, with no body.
 */
import type { RouteContext, RouteModule } from "./route_module.ts";
import { jobsRoutes } from "./jobs_routes.ts";
import { openapiRoute } from "./openapi.ts";
import { sessionsRoutes } from "./sessions_routes.ts";

const MODULES: readonly RouteModule[] = [sessionsRoutes, jobsRoutes, openapiRoute];
/** The paths (and the paths under them) the modules answer; others skip them at once. */
const PREFIXES: readonly string[] = ["/sessions", "/jobs", "/openapi.json"];

/** Answers the request from the first module that takes it, or undefined. */
export async function apiRoutes(
  request: Request,
  context: RouteContext,
): Promise<Response | undefined> {
  const { path } = context;
  if (!PREFIXES.some((p) => path === p || path.startsWith(`${p}/`))) return undefined;
  if (request.method === "HEAD") {
    const full = await apiRoutes(new Request(request, { method: "GET" }), context);
    if (!full) return undefined;
    await full.body?.cancel();
    return new Response(null, { status: full.status, headers: full.headers });
  }
  for (const module of MODULES) {
    const response = await module(request, context);
    if (response) return response;
  }
  return undefined;
}
