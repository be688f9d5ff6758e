import type { SessionStore } from "../runtime/mod.ts";
import type { TurnRegistry } from "./turns.ts";

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
  /**
   * Starts one run now, as `svc jobs run` runs it but only when the job is approved, and answers
   * once it started (the run goes on in the background) or was refused; null: no such job.
   */
  run(name: string): Promise<JobRunStart | null>;
  /** Cancels the runs in progress (each saved as cancelled) and waits for them to end. */
  close?(): Promise<void>;
  /** The sessions job runs use now (an attempt not ended), wherever they run: session to job. */
  busySessions?(): Promise<Map<string, string>>;
}

/** A run `POST /jobs/{name}/run` started, or why it did not start. */
export type JobRunStart = { name: string; run: number; session: string } | { refused: string };

/** What a route module is given: the path, the app and the server's /chat turns. */
export interface RouteContext {
  path: string;
  app: RouteApp;
  /** The /chat requests running or waiting, by session (absent: none are known). */
  turns?: TurnRegistry;
}

/** One route module: a Response when the request is its, else undefined (not mine). */
export type RouteModule = (
  request: Request,
  context: RouteContext,
) => Promise<Response | undefined>;
