/** Official MCP clients (v2 in both eras, v1 legacy) wired to svc over HTTP or stdio. */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { TEST_MAIN as MAIN } from "../_support/builds.ts";

/** The reserved `_meta` envelope of a modern (2026-07-28) request. */
export const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

/** The era a v2 client negotiates: `auto` probes server/discover (modern), `legacy` initializes. */
export type Era = "auto" | "legacy";

/** A connected client of either SDK generation, reduced to what the tests call. */
export interface AnyClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: Array<{ uri: string; name: string }> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<Record<string, unknown>> }>;
  close(): Promise<void>;
}

type FetchFn = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that hands requests straight to an in-process handler (no socket). */
export function handlerFetch(handler: (request: Request) => Promise<Response>): FetchFn {
  return (url, init) => handler(new Request(url, init));
}

/** v2 client over streamable HTTP. */
export async function v2Http(url: string, era: Era, fetch?: FetchFn) {
  const client = new Client({ name: "svc-test", version: "1" }, {
    versionNegotiation: { mode: era },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch }));
  return client;
}

/** v1 SDK client (legacy era only) over streamable HTTP. */
export async function v1Http(url: string, fetch?: FetchFn) {
  const client = new V1Client({ name: "svc-test-v1", version: "1" });
  await client.connect(new V1HttpTransport(new URL(url), { fetch }));
  return client;
}

/** The `svc mcp` command line for a client to spawn. */
function svcMcp(cwd: string, env: Record<string, string>) {
  return {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", MAIN, "mcp"],
    cwd,
    env: { ...env, PATH: Deno.env.get("PATH") ?? "" },
    stderr: "ignore" as const,
  };
}

/** v2 client over stdio, spawning `svc mcp` in `cwd`. */
export async function v2Stdio(era: Era, cwd: string, env: Record<string, string>) {
  const client = new Client({ name: "svc-test", version: "1" }, {
    versionNegotiation: { mode: era },
  });
  await client.connect(new StdioClientTransport(svcMcp(cwd, env)));
  return client;
}

/** v1 SDK client over stdio, spawning `svc mcp` in `cwd`. */
export async function v1Stdio(cwd: string, env: Record<string, string>) {
  const client = new V1Client({ name: "svc-test-v1", version: "1" });
  await client.connect(new V1StdioTransport(svcMcp(cwd, env)));
  return client;
}
