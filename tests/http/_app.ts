/** Builds the real HTTP handler over a real engine and the scripted fake provider; no socket. */
import type { Reply } from "../_support/fake_provider.ts";
import { type Harness, harness } from "../_support/engine.ts";
import type { ServiceContext } from "../../src/plugin/api.ts";
import type { Tool } from "../../src/tool/types.ts";
import {
  bearerChecker,
  closeEndpoints,
  createHandler,
  type HandlerOptions,
  mountServices,
  Mutex,
} from "../../src/http/mod.ts";
import { createMcpHost, createMcpHttpEndpoint } from "../../src/mcp/mod.ts";
import { VERSION } from "../../src/version.ts";
import { mcpService } from "../../plugins/svc-core-mcp/src/mcp_service.ts";

/** The origin every test request is addressed to (the handler believes it is bound there). */
export const BASE = "http://127.0.0.1:8787";

export interface App extends Harness {
  handler: (request: Request) => Promise<Response>;
  shutdown: AbortController;
  lock: Mutex;
  /** Sends one request to the handler; `json` is serialized with Content-Type application/json. */
  call(method: string, path: string, init?: CallInit): Promise<Response>;
}

export interface CallInit {
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Aborting it is what a client disconnect looks like to the handler. */
  signal?: AbortSignal;
}

/** A handler with the MCP plugin mounted (unless `mcp: false`), over a fresh worktree. */
export async function app(
  script: Reply[],
  options: {
    config?: Record<string, unknown>;
    tools?: Tool[];
    token?: string;
    mcp?: boolean;
    maxWaiting?: number;
    handler?: Partial<HandlerOptions>;
  } = {},
): Promise<App> {
  const h = await harness(script, { config: options.config, tools: options.tools });
  const lock = new Mutex(options.maxWaiting ?? 32);
  const shutdown = new AbortController();
  const host = createMcpHost(h.engine.deps, h.store, {
    serialize: (fn, signal) => lock.run(fn, signal),
  });
  const ctx: ServiceContext = {
    worktree: h.worktree,
    version: VERSION,
    tools: host.tools,
    sessions: host.sessions,
    endpoints: { mcp: () => createMcpHttpEndpoint(host) },
  };
  const endpoints = options.mcp === false
    ? new Map()
    : await mountServices([mcpService], ctx, (message) => {
      throw new Error(message);
    });
  const handler = createHandler(
    {
      engine: h.engine,
      store: h.store,
      lock,
      shutdown: shutdown.signal,
      version: VERSION,
      endpoints,
    },
    {
      hostname: "127.0.0.1",
      port: 8787,
      checkToken: options.token ? bearerChecker(options.token) : undefined,
      ...options.handler,
    },
  );
  return {
    ...h,
    handler,
    shutdown,
    lock,
    call(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers["content-type"] ??= "application/json";
      }
      return handler(
        new Request(`${BASE}${path}`, { method, headers, body, signal: init.signal }),
      );
    },
    async [Symbol.asyncDispose]() {
      shutdown.abort();
      await closeEndpoints(endpoints);
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
