import type { Engine } from "../runtime/mod.ts";
import type { HttpEndpoint, ServiceContext } from "../plugin/api.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { type ServedHost, servedHost } from "../runtime/served_host.ts";
import { headlessInfo } from "../runtime/headless.ts";
import { ClientApprovals } from "./approvals.ts";
import { createHandler, type HandlerOptions } from "./handler.ts";
import { Mutex } from "./lock.ts";
import type { JobsApi } from "./route_module.ts";
import { closeEndpoints, mountServices } from "./services.ts";

/** Requests allowed to wait for the engine lock by default; more are answered 503. */
export const MAX_WAITING = 32;

/** How `svc serve` is assembled. */
export interface ServeAppOptions {
  maxWaiting?: number;
  /** Builds the POST /mcp endpoint a service may mount (the MCP layer's; absent: none). */
  mcpEndpoint?: (host: ServedHost) => HttpEndpoint;
  warn?: (message: string) => void;
  /** The worktree's jobs for the /jobs routes (`svc serve` passes `svc jobs`'s; absent: 404). */
  jobs?: JobsApi;
}

/** Everything `svc serve` runs: one shared headless engine, its lock, services and handler. */
export interface ServeApp {
  runtime: Runtime;
  engine: Engine;
  lock: Mutex;
  host: ServedHost;
  endpoints: ReadonlyMap<string, HttpEndpoint>;
  /** Aborted on shutdown: the running turn is cancelled, waiting requests get 503. */
  shutdown: AbortSignal;
  /** The HTTP handler for the address the server is bound to. */
  handler(options: HandlerOptions): (request: Request) => Promise<Response>;
  /** Cancels what runs (turns, job runs started over HTTP) and closes the mounted endpoints. */
  close(): Promise<void>;
}

/**
 * Assembles `svc serve` from a runtime: the shared headless engine, the lock that serializes
 * turns and served tool calls, the served host (tools, sessions), the plugin services' endpoints
 * and the handler. `svc serve` and the tests build the server only through this function.
 */
export async function createServeApp(
  runtime: Runtime,
  options: ServeAppOptions = {},
): Promise<ServeApp> {
  // Ask-gated calls are denied unless the turn asked for live approvals ("approvals": "client").
  const approvals = new ClientApprovals(runtime.config.approval_timeout);
  const engine = await runtime.engine({ headless: true, approver: approvals.approver });
  const lock = new Mutex(options.maxWaiting ?? MAX_WAITING);
  const shutdown = new AbortController();
  const warn = options.warn ?? (() => {});
  const host = servedHost(runtime, {
    serialize: (fn, signal) => lock.run(fn, signal),
    shutdown: shutdown.signal,
    warn,
  });
  const ctx: ServiceContext = {
    ...host,
    endpoints: {
      mcp: () => {
        if (!options.mcpEndpoint) throw new Error("this server has no MCP endpoint to mount");
        return options.mcpEndpoint(host);
      },
    },
  };
  const endpoints = await mountServices(runtime.plugins.services, { ctx, warn });
  return {
    runtime,
    engine,
    lock,
    host,
    endpoints,
    shutdown: shutdown.signal,
    handler: (handlerOptions) =>
      createHandler(
        {
          engine,
          store: runtime.sessions,
          lock,
          shutdown: shutdown.signal,
          warn,
          version: host.version,
          info: () => headlessInfo(runtime, engine),
          approvals,
          endpoints,
          jobs: options.jobs,
        },
        handlerOptions,
      ),
    async close() {
      shutdown.abort();
      await Promise.all([closeEndpoints(endpoints), options.jobs?.close?.()]);
    },
  };
}
