import type { ClientInfo, HttpEndpoint } from "../plugin/api.ts";
import { type BodyLimits, readBody } from "./body.ts";
import { type ChatDeps, handleChat } from "./chat.ts";
import { createGuard, type GuardOptions } from "./guard.ts";
import { fail, isJsonType, json, JSON_HEADERS } from "./reply.ts";
import { SessionCache } from "./session_cache.ts";
import { apiRoutes } from "./api_routes.ts";
import type { JobsApi } from "./route_module.ts";
import { abortRoute } from "./abort_route.ts";
import { approvalsRoute } from "./approvals_route.ts";
import { TurnRegistry } from "./turns.ts";
import { UI_PATHS, uiRoute } from "./ui_route.ts";

/**
 * Largest POST /chat body: 12 MiB, room for its `images` (base64 grows an image by a third): one
 * image of the 5 MiB limit, or eight of about 1 MiB each, with the prompt.
 */
export const MAX_CHAT_BYTES = 12 * 1024 * 1024;
/** Largest body of a POST to a mounted endpoint (matches the MCP SDK's default): 4 MiB. */
export const MAX_ENDPOINT_BYTES = 4 * 1024 * 1024;
/** A request body must arrive within this many milliseconds. */
export const BODY_TIMEOUT_MS = 10_000;

/** Everything the routes use: the chat dependencies, the version and the mounted endpoints. */
export interface HttpApp extends ChatDeps {
  version: string;
  /** Plugin endpoints by exact path (for example /mcp). */
  endpoints: ReadonlyMap<string, HttpEndpoint>;
  /** The worktree's jobs for the /jobs routes (src/http/jobs_routes.ts); absent: 404. */
  jobs?: JobsApi;
}

/** Options of the handler: the guard plus body limits (tests shrink them). */
export interface HandlerOptions extends GuardOptions {
  maxChatBytes?: number;
  bodyTimeoutMs?: number;
  /** Reports unexpected failures (500s); never given request bodies or tokens. */
  onError?: (error: Error) => void;
  /** `svc serve --ui`: also serve the web page (src/http/ui_route.ts) at `/`, without the token. */
  ui?: boolean;
}

/** The core routes and the method each accepts (GET routes answer HEAD too). */
const ROUTES: Record<string, string> = {
  "/chat": "POST",
  "/sessions": "GET",
  "/health": "GET",
  "/version": "GET",
};

/** Routes answered without the bearer token: probes, and nothing a caller could learn from. */
export const OPEN_PATHS: readonly string[] = ["/health", "/version"];

/**
 * The HTTP API as a `(Request) => Promise<Response>` function: guard (Host, Origin, token), then
 * routing. Every response of svc's own routes is JSON; POST bodies must be application/json.
 * Mounted endpoints' replies get the same caching and sniffing headers.
 */
export function createHandler(
  app: HttpApp,
  options: HandlerOptions,
): (request: Request) => Promise<Response> {
  const open = options.open ?? (options.ui ? [...OPEN_PATHS, ...UI_PATHS] : OPEN_PATHS);
  const guard = createGuard({ ...options, open });
  // Past the guard every request carried the token, when there is one (not under --no-auth).
  const client: ClientInfo = { authenticated: options.checkToken !== undefined };
  const chatLimits: BodyLimits = {
    maxBytes: options.maxChatBytes ?? MAX_CHAT_BYTES,
    timeoutMs: options.bodyTimeoutMs ?? BODY_TIMEOUT_MS,
  };
  const sessions = new SessionCache(app.store);
  const turns = new TurnRegistry();
  const endpointLimits: BodyLimits = { ...chatLimits, maxBytes: MAX_ENDPOINT_BYTES };
  const health = JSON.stringify({ status: "ok" });
  const route = async (request: Request, path: string): Promise<Response> => {
    const page = options.ui ? uiRoute(request, path) : undefined;
    if (page) return page;
    const own = await abortRoute(request, { path, app, turns }) ??
      (app.approvals &&
        await approvalsRoute(request, { path, approvals: app.approvals, limits: chatLimits }));
    if (own) return own;
    const answered = await apiRoutes(request, { path, app, turns });
    if (answered) return answered;
    const endpoint = app.endpoints.get(path);
    const allowed = ROUTES[path];
    if (!allowed && !endpoint) return fail(404, "not found");
    if (allowed === "GET" && request.method === "HEAD") {
      const full = await route(new Request(request, { method: "GET" }), path);
      await full.body?.cancel();
      return new Response(null, { status: full.status, headers: full.headers });
    }
    if (allowed && request.method !== allowed) {
      const allow = allowed === "GET" ? "GET, HEAD" : allowed;
      return fail(405, `method not allowed; ${path} accepts ${allowed}`, { allow });
    }
    if (request.method === "POST" && !isJsonType(request.headers.get("content-type"))) {
      return fail(415, "request body must be sent as Content-Type: application/json");
    }
    if (endpoint) return withHostHeaders(await forward(request, endpoint, endpointLimits, client));
    switch (path) {
      case "/health":
        return new Response(health, { headers: JSON_HEADERS });
      case "/version":
        return json({ version: app.version });
      case "/sessions":
        return json({ sessions: await app.store.list() });
      default:
        return await handleChat(request, { deps: app, limits: chatLimits, sessions, turns });
    }
  };
  return async (request) => {
    try {
      const path = pathOf(request.url);
      return guard(request, path) ?? await route(request, path);
    } catch (err) {
      options.onError?.(err as Error);
      return fail(500, "internal error");
    }
  };
}

/**
 * Hands a request to a mounted endpoint with its body already read under the size cap and the
 * deadline, so no endpoint can be held open by a slow or endless upload. The forwarded request
 * keeps `request.signal`, which means "client gone" (the socket adapter aborts it when the
 * connection closes before the reply), so an endpoint can cancel what a departed client asked for.
 */
async function forward(
  request: Request,
  endpoint: HttpEndpoint,
  limits: BodyLimits,
  client: ClientInfo,
): Promise<Response> {
  if (request.method !== "POST") return await endpoint.fetch(request, client);
  const body = await readBody(request, limits);
  if (!body.ok) return body.response;
  return await endpoint.fetch(
    new Request(request.url, {
      method: "POST",
      headers: request.headers,
      body: body.value as Uint8Array<ArrayBuffer>,
      signal: request.signal,
    }),
    client,
  );
}

/**
 * A mounted endpoint's reply with the headers every svc response carries: never cached (SSE keeps
 * `no-transform` for proxies), never sniffed, and no CORS header whatever the endpoint set.
 */
function withHostHeaders(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const name of [...headers.keys()]) {
    if (name.startsWith("access-control-")) headers.delete(name);
  }
  const stream = (headers.get("content-type") ?? "").startsWith("text/event-stream");
  headers.set("cache-control", stream ? "no-store, no-transform" : "no-store");
  headers.set("x-content-type-options", "nosniff");
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** The path of an absolute request URL without building a URL object (the /health hot path). */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let stop = url.length;
  for (const mark of ["?", "#"]) {
    const at = url.indexOf(mark, start);
    if (at >= 0 && at < stop) stop = at;
  }
  return url.slice(start, stop);
}
