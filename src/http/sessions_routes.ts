/**
 * `GET /sessions/{id}` (a session, its messages by page), `DELETE /sessions/{id}` (the session
 * and its undo checkpoints, as `svc sessions rm`) and `GET /sessions?q=` (search, as
 * `svc sessions search`). `{id}` is an exact session name, percent-decoded once: anything else
 * (`..%2F..%2Fetc`, an absolute path, a prefix) is 400 or 404 and never reaches the file system.
 * `GET /sessions` without `q` stays the handler's own listing.
 */
import { deleteSession, exactSession, searchStore, sessionPage } from "../runtime/session_api.ts";
import { fail, json } from "./reply.ts";
import type { RouteApp, RouteContext } from "./route_module.ts";

/** Messages per page of `GET /sessions/{id}` unless `limit` says otherwise, and the most. */
export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 1000;
/** Sessions `GET /sessions?q=` returns unless `limit` says otherwise, and the most. */
export const SEARCH_DEFAULT = 20;
export const SEARCH_MAX = 200;

/** The routes of this file and their methods (GET routes answer HEAD too), for the OpenAPI test. */
export const SESSION_ROUTES: Record<string, string[]> = {
  "/sessions/{id}": ["GET", "DELETE"],
};

const PREFIX = "/sessions/";

/** Answers the session routes, or undefined when the request is not one of them. */
export async function sessionsRoutes(
  request: Request,
  { path, app, turns }: RouteContext,
): Promise<Response | undefined> {
  if (path === "/sessions") return search(request, app);
  if (!path.startsWith(PREFIX) || path.slice(PREFIX.length).includes("/")) return undefined;
  if (request.method !== "GET" && request.method !== "DELETE") {
    return fail(405, "method not allowed; /sessions/{id} accepts GET and DELETE", {
      allow: "GET, HEAD, DELETE",
    });
  }
  let id: string;
  try {
    id = decodeURIComponent(path.slice(PREFIX.length));
  } catch {
    return fail(400, "invalid session id: bad percent-encoding");
  }
  const found = await exactSession(app.store, id);
  if (!found.ok) return fail(found.invalid ? 400 : 404, found.message);
  if (request.method === "DELETE") {
    const busy = (turns && inUse(found.name, turns.activity(found.name))) ??
      await jobRun(found.name, app);
    if (busy) return fail(409, busy);
    const { checkpoints_kept: _kept, ...deleted } = await deleteSession(app.store, found.name);
    return json(deleted);
  }
  const params = new URL(request.url).searchParams;
  const offset = count(params.get("offset"), { fallback: 0, max: Number.MAX_SAFE_INTEGER });
  const limit = count(params.get("limit"), { fallback: PAGE_DEFAULT, max: PAGE_MAX });
  if (offset === null || limit === null) {
    return fail(400, `offset and limit must be whole numbers (limit 1 to ${PAGE_MAX})`);
  }
  return json(await sessionPage(app.store, found.name, { offset, limit }));
}

/** Why a session may not be deleted now (a turn of it runs or waits), or null. */
function inUse(name: string, { running, queued }: { running: number; queued: number }) {
  if (!running && !queued) return null;
  const what = running
    ? `a running turn${queued ? ` and ${queued} queued` : ""}`
    : `${queued} queued turn${queued > 1 ? "s" : ""}`;
  return `session ${name} has ${what}; end it first (POST /sessions/${name}/abort, which ` +
    "ends the running turn or else takes the queued ones out of the queue) and delete it then";
}

/** Why a job run's session may not be deleted now (the run is in progress), or null. */
async function jobRun(name: string, app: RouteApp): Promise<string | null> {
  const job = (await app.jobs?.busySessions?.())?.get(name);
  if (job === undefined) return null;
  return `session ${name} is the session of job ${job}'s run in progress; stop the run first ` +
    `(POST /jobs/${job}/stop) or wait for it to end, and delete it then`;
}

/** `GET /sessions?q=`: undefined without `q` (the handler lists), else the search. */
function search(request: Request, app: RouteApp): Response | undefined {
  const params = new URL(request.url).searchParams;
  if (!params.has("q") || request.method !== "GET") return undefined;
  const text = params.get("q") ?? "";
  if (!text.trim()) return fail(400, "q must be some text to look for");
  const limit = count(params.get("limit"), { fallback: SEARCH_DEFAULT, max: SEARCH_MAX });
  if (limit === null) return fail(400, `limit must be a whole number from 1 to ${SEARCH_MAX}`);
  return json(searchStore(app.store, text, { limit }));
}

/** A query parameter as a whole number within [0 or 1, max], its fallback when absent, or null. */
function count(
  raw: string | null,
  { fallback, max }: { fallback: number; max: number },
): number | null {
  if (raw === null) return fallback;
  if (!/^\d{1,16}$/.test(raw)) return null;
  const value = Number(raw);
  const min = max === Number.MAX_SAFE_INTEGER ? 0 : 1;
  return value >= min && value <= max ? value : null;
}
