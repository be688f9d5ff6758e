/** Builds the real HTTP handler the way `svc serve` does (createServeApp); no socket. */
import type { Reply } from "../_support/fake_provider.ts";
import { type Harness, harness } from "../_support/engine.ts";
import type { Tool } from "../../src/tool/types.ts";
import {
  bearerChecker,
  createServeApp,
  type HandlerOptions,
  type Mutex,
} from "../../src/http/mod.ts";
import { createMcpHttpEndpoint } from "../../src/mcp/mod.ts";
import { mcpService } from "../../plugins/svc-core-mcp/src/mcp_service.ts";

/** The origin every test request is addressed to (the handler believes it is bound there). */
export const BASE = "http://127.0.0.1:8787";

/** The bearer token of every test app unless it is built with `token: null` (`--no-auth`). */
export const TOKEN = "test-token-0123456789abcdef";

export interface App extends Harness {
  handler: (request: Request) => Promise<Response>;
  /** Aborts the app's shutdown signal (what SIGTERM does to `svc serve`). */
  shutdown: { abort(): void };
  lock: Mutex;
  /**
   * Sends one request to the handler; `json` is serialized with Content-Type application/json.
   * The app's token is sent unless `auth: false` or the headers name an Authorization.
   */
  call(method: string, path: string, init?: CallInit): Promise<Response>;
  /** A fetch for MCP clients that hands requests to the handler with the app's token. */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
}

export interface CallInit {
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Aborting it is what a client disconnect looks like to the handler. */
  signal?: AbortSignal;
  /** False: send no token. */
  auth?: boolean;
}

/**
 * A handler with the MCP plugin mounted (unless `mcp: false`), over a fresh worktree, requiring
 * TOKEN as `svc serve` requires its token file (`token: null`: no token, as `--no-auth`).
 */
export async function app(
  script: Reply[] | ((body: Record<string, unknown>, index: number) => Reply),
  options: {
    config?: Record<string, unknown>;
    tools?: Tool[];
    token?: string | null;
    mcp?: boolean;
    maxWaiting?: number;
    handler?: Partial<HandlerOptions>;
    /** Answer the /jobs routes over the worktree's jobs, as `svc serve` does. */
    jobs?: boolean;
    /** Extra fields of the fake provider's `/v1/models` entry (`architecture`, ...). */
    modelEntry?: Record<string, unknown>;
  } = {},
): Promise<App> {
  const h = await harness(script, {
    config: options.config,
    tools: options.tools,
    services: options.mcp === false ? [] : [mcpService],
    modelEntry: options.modelEntry,
  });
  const served = await createServeApp(h.runtime, {
    maxWaiting: options.maxWaiting,
    mcpEndpoint: (host) => createMcpHttpEndpoint(host),
    warn: (message) => {
      throw new Error(message);
    },
    // Loaded only here: the jobs modules stay out of the other HTTP tests.
    jobs: options.jobs
      ? (await import("../../src/cli/serve_jobs.ts")).serveJobs(h.runtime)
      : undefined,
  });
  const token = options.token === undefined ? TOKEN : options.token;
  const handler = served.handler({
    hostname: "127.0.0.1",
    port: 8787,
    checkToken: token ? bearerChecker(token) : undefined,
    ...options.handler,
  });
  const authorization: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return {
    ...h,
    engine: served.engine,
    handler,
    shutdown: { abort: () => void served.close() },
    lock: served.lock,
    call(method, path, init = {}) {
      const given = Object.keys(init.headers ?? {}).some((k) =>
        k.toLowerCase() === "authorization"
      );
      const headers: Record<string, string> = {
        ...(init.auth === false || given ? {} : authorization),
        ...init.headers,
      };
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers["content-type"] ??= "application/json";
      }
      return handler(
        new Request(`${BASE}${path}`, { method, headers, body, signal: init.signal }),
      );
    },
    fetch(url, init) {
      const request = new Request(url, init);
      if (token) request.headers.set("authorization", `Bearer ${token}`);
      return handler(request);
    },
    async [Symbol.asyncDispose]() {
      await served.close();
      await h[Symbol.asyncDispose]();
    },
  };
}

/** Whether the worktree holds any session file (hostile requests must never create one). */
export async function sessionFiles(worktree: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(`${worktree}/.svc/sessions`)) {
      if (entry.name.endsWith(".json")) names.push(entry.name);
    }
  } catch {
    // no sessions folder: nothing was written
  }
  return names.sort();
}

/** The JSON headers every svc route sends, with no CORS header among them. */
export function assertJsonHeaders(response: Response): void {
  const headers = Object.fromEntries(response.headers);
  const cors = Object.keys(headers).filter((k) => k.startsWith("access-control-"));
  if (headers["content-type"] !== "application/json" || cors.length) {
    throw new Error(`unexpected headers ${JSON.stringify(headers)}`);
  }
}
