/**
 * `GET /jobs`, `GET /jobs/{name}` and `POST /jobs/{name}/approve|reject|enable|disable|stop|run`:
 * the operator's view of the scheduled jobs. http may not import src/jobs/ (front-ends never import
 * each other), so `svc serve` hands the server a JobsApi built over `svc jobs`'s own commands
 * (src/cli/serve_jobs.ts); without one these paths are 404. An approval is bound to the person
 * as `svc jobs approve` binds it: the token holder of this server is the user who started it.
 */
import { fail, json } from "./reply.ts";
import type { JobChange, JobsApi, RouteApp } from "./route_module.ts";

/** The changes a POST may ask for; `stop` is `disable`, as in `svc jobs stop`. */
export const JOB_CHANGES = ["approve", "reject", "enable", "disable", "stop"] as const;
/** The POSTs under `/jobs/{name}/`: the changes and `run`. */
const JOB_ACTIONS: readonly string[] = [...JOB_CHANGES, "run"];

/** The routes of this file and their methods, for the OpenAPI test. */
export const JOB_ROUTES: Record<string, string[]> = {
  "/jobs": ["GET"],
  "/jobs/{name}": ["GET"],
  ...Object.fromEntries(JOB_ACTIONS.map((what) => [`/jobs/{name}/${what}`, ["POST"]])),
};

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;

/** Answers the job routes, or undefined when the request is not one of them. */
export async function jobsRoutes(
  request: Request,
  { path, app }: { path: string; app: RouteApp },
): Promise<Response | undefined> {
  const api = app.jobs;
  if (!api || (path !== "/jobs" && !path.startsWith("/jobs/"))) return undefined;
  const [raw, what, ...rest] = path === "/jobs" ? [] : path.slice("/jobs/".length).split("/");
  if (rest.length || (what !== undefined && !JOB_ACTIONS.includes(what))) {
    return undefined;
  }
  const method = what === undefined ? "GET" : "POST";
  if (request.method !== method) {
    const allow = method === "GET" ? "GET, HEAD" : "POST";
    return fail(405, `method not allowed; this path accepts ${method}`, { allow });
  }
  await request.body?.cancel().catch(() => {});
  if (raw === undefined) return json(await api.status());
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return fail(400, "invalid job name: bad percent-encoding");
  }
  if (!NAME.test(name)) return fail(400, "invalid job name: 1-64 of letters, digits, _ and -");
  if (what === "run") return await run(api, name);
  try {
    const answer = what === undefined
      ? await api.show(name)
      : await api.change(name, what === "stop" ? "disable" : what as JobChange);
    return answer === null ? fail(404, `no job named "${name}"`) : json(answer);
  } catch (err) {
    return fail(409, (err as Error).message);
  }
}

/**
 * `POST /jobs/{name}/run`: 202 once the run started (it goes on in the background; `GET
 * /jobs/{name}`, the Location, shows it), 409 when it may not start (not approved, running).
 */
async function run(api: JobsApi, name: string): Promise<Response> {
  const started = await api.run(name);
  if (started === null) return fail(404, `no job named "${name}"`);
  if ("refused" in started) return fail(409, started.refused);
  const location = `/jobs/${name}`;
  return json({ ...started, state: "executing", location }, 202, { location });
}
