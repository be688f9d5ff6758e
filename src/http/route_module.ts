import type { SessionStore } from "../runtime/mod.ts";

/** What the route modules use of the handler's app (HttpApp satisfies it). */
export interface RouteApp {
  store: SessionStore;
  version: string;
  /** The worktree's jobs (src/http/jobs_routes.ts); absent: the /jobs routes are 404. */
  jobs?: JobsApi;
}

/** A change a person makes to a job (`svc jobs approve|reject|enable|disable`). */
export type JobChange = "approve" | "reject" | "enable" | "disable";

/** What the server can do with the worktree's jobs (`svc serve` builds it over `svc jobs`). */
export interface JobsApi {
  /** `svc jobs status --json`. */
  status(): Promise<unknown>;
  /** `svc jobs show <name> --json`, or null when no job has that name. */
  show(name: string): Promise<unknown | null>;
  /** `svc jobs <what> <name> --json`, or null when no job has that name; throws a refusal. */
  change(name: string, what: JobChange): Promise<unknown | null>;
}

/** One route module: a Response when the request is its, else undefined (not mine). */
export type RouteModule = (
  request: Request,
  context: { path: string; app: RouteApp },
) => Promise<Response | undefined>;
