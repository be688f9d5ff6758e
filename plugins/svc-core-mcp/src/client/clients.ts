/**
 * The MCP servers of one runtime: their state (disconnected, connecting, connected, failed), the
 * tools imported from each, and the operations of mcp_connect, mcp_list and mcp_disconnect. One
 * per runtime, found through the runtime's tool host; connections live as long as the process.
 */
import {
  mcpServerRefusal,
  type Tool,
  type ToolHost,
  type ToolOutput,
} from "../../../../src/plugin/api.ts";
import type { SandboxSettings } from "../../../../src/tool/long_lived.ts";
import { describeFailure } from "./errors.ts";
import { type Accepted, planImport } from "./imported.ts";
import { resultOutput } from "./result_text.ts";
import type { Connection, ServerEntry } from "./types.ts";

export type ServerState = "disconnected" | "connecting" | "connected" | "failed";

/** One configured server and what svc holds of it. */
interface Server {
  entry: ServerEntry;
  state: ServerState;
  /** Why the last connect failed, or how the connection ended. */
  error?: string;
  connection?: Connection;
  /** Imported tools by canonical name. */
  imported: Map<string, Accepted>;
  /** Tools not imported at connect, with the reason. */
  skipped: string[];
  /** Imported tools whose definition changed (or that went away) after connect: disabled. */
  changed: Set<string>;
  /** Tools the server lists since connect that were not imported then. */
  appeared: string[];
  /** Operations on this server run one at a time. */
  queue: Promise<unknown>;
}

/** What one connect did, for the tool result. */
export interface ConnectReport {
  server: string;
  ok: boolean;
  text: string;
}

const byHost = new WeakMap<ToolHost, McpClients>();

/** The MCP client state of the runtime that `host` belongs to. */
export function clientsFor(host: ToolHost, worktree: string): McpClients {
  let clients = byHost.get(host);
  if (!clients) byHost.set(host, clients = new McpClients(host, worktree));
  return clients;
}

export class McpClients {
  #servers = new Map<string, Server>();

  constructor(readonly host: ToolHost, readonly worktree: string) {}

  /**
   * Connects the named server, or every configured one (in parallel); `sandbox` is the sandbox
   * settings of the runtime's config, for entries with `sandbox: true`.
   */
  async connect(
    entries: readonly ServerEntry[],
    options: { name?: string; signal: AbortSignal; sandbox: SandboxSettings },
  ): Promise<ConnectReport[]> {
    const { name } = options;
    const targets = name === undefined ? entries : entries.filter((e) => e.name === name);
    return await Promise.all(
      targets.map((entry) =>
        this.#serialized(this.#server(entry), (s) => this.#connect(s, options))
      ),
    );
  }

  /** Disconnects a server and withdraws its tools; the text says what happened. */
  async disconnect(entry: ServerEntry): Promise<string> {
    return await this.#serialized(this.#server(entry), async (server) => {
      if (server.state !== "connected") {
        return `${entry.name} is not connected (${server.state}); nothing to do`;
      }
      const count = server.imported.size;
      await this.#drop(server);
      server.state = "disconnected";
      server.error = undefined;
      return `Disconnected ${entry.name}; its ${count} tools are withdrawn from your next prompt`;
    });
  }

  /** Disconnects every connected server (at the end of a test or an embedding). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#servers.values()].map((server) => this.disconnect(server.entry)));
  }

  /** The servers, their state and tools; connected listings are fetched again to see changes. */
  async describe(entries: readonly ServerEntry[], signal: AbortSignal): Promise<string> {
    const servers = entries.map((entry) => this.#server(entry));
    await Promise.all(
      servers.filter((s) => s.state === "connected").map((s) =>
        this.#serialized(s, () => this.#refresh(s, signal))
      ),
    );
    return servers.map(describeServer).join("\n");
  }

  /** The state of a configured server (tests, mcp_list). */
  stateOf(name: string): ServerState {
    return this.#servers.get(name)?.state ?? "disconnected";
  }

  #server(entry: ServerEntry): Server {
    let server = this.#servers.get(entry.name);
    if (!server) {
      server = {
        entry,
        state: "disconnected",
        imported: new Map(),
        skipped: [],
        changed: new Set(),
        appeared: [],
        queue: Promise.resolve(),
      };
      this.#servers.set(entry.name, server);
    }
    return server;
  }

  #serialized<T>(server: Server, fn: (server: Server) => Promise<T>): Promise<T> {
    const run = server.queue.then(() => fn(server));
    server.queue = run.catch(() => {});
    return run;
  }

  async #connect(
    server: Server,
    { signal, sandbox }: { signal: AbortSignal; sandbox: SandboxSettings },
  ): Promise<ConnectReport> {
    const { name } = server.entry;
    if (server.state === "connected" && !server.changed.size && !server.appeared.length) {
      return { server: name, ok: true, text: `${name} is already connected: ${toolList(server)}` };
    }
    // There is no one to ask here: the answer is the same headless and in the REPL.
    const refused = await mcpServerRefusal(server.entry, this.worktree);
    if (refused) {
      server.state = "failed";
      server.error = refused;
      return { server: name, ok: false, text: `Error: ${refused}` };
    }
    await this.#drop(server);
    server.state = "connecting";
    let connection: Connection | undefined;
    try {
      const { openConnection } = await import("./connection.ts");
      connection = await openConnection(server.entry, {
        worktree: this.worktree,
        signal,
        sandbox,
        events: {
          onEnded: (why) => this.#ended(server, connection, why),
          onToolsChanged: () => {
            this.#serialized(server, () => this.#refresh(server)).catch(() => {});
          },
        },
      });
      const plan = planImport(await connection.listTools(signal), {
        prefix: prefixOf(server.entry),
        server: name,
      });
      server.connection = connection;
      server.skipped = plan.skipped;
      for (const accepted of plan.accepted) {
        try {
          this.host.add(this.#tool(server, connection, accepted));
          server.imported.set(accepted.name, accepted);
        } catch (err) {
          server.skipped.push(`${JSON.stringify(accepted.remote)}: ${(err as Error).message}`);
        }
      }
      server.state = "connected";
      server.error = undefined;
      return { server: name, ok: true, text: connectedText(server, connection) };
    } catch (err) {
      await this.#drop(server);
      await connection?.close();
      server.state = "failed";
      server.error = describeFailure(err, server.entry.timeout);
      return { server: name, ok: false, text: `Error: could not connect ${name}: ${server.error}` };
    }
  }

  /** The svc tool of one imported definition; it calls through the connection it came from. */
  #tool(server: Server, connection: Connection, accepted: Accepted): Tool {
    const { name: serverName, timeout } = server.entry;
    return {
      name: accepted.name,
      category: "mcp",
      description: accepted.description,
      schema: accepted.schema,
      parameters: accepted.parameters,
      run: async (args, ctx): Promise<ToolOutput> => {
        if (server.connection !== connection || connection.ended) {
          const why = connection.ended ?? "it was reconnected";
          return fail(
            `Error: ${accepted.name} is unavailable: MCP server ${serverName} is not connected ` +
              `(${why}); run mcp_connect ${serverName}`,
          );
        }
        if (server.changed.has(accepted.name)) {
          return fail(
            `Error: ${accepted.name} is disabled: MCP server ${serverName} changed its ` +
              `definition after connect; run mcp_connect ${serverName} to import it again`,
          );
        }
        try {
          return resultOutput(
            accepted.name,
            await connection.callTool(accepted.remote, args, {
              signal: ctx.signal,
              ask: (request) => ctx.ask(request),
              ...(ctx.elicit ? { approve: (request) => ctx.elicit!(request) } : {}),
            }),
          );
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          const lost = connection.ended
            ? `; MCP server ${serverName} is disconnected (${connection.ended})`
            : "";
          return fail(`Error: ${accepted.name} failed: ${describeFailure(err, timeout)}${lost}`);
        }
      },
    };
  }

  /** Fetches the listing again: changed or vanished imports are disabled, new ones noted. */
  async #refresh(server: Server, signal?: AbortSignal): Promise<void> {
    const connection = server.connection;
    if (!connection || server.state !== "connected") return;
    let listed;
    try {
      listed = await connection.listTools(signal);
    } catch {
      return; // a failing listing says nothing about definitions; calls will report the problem
    }
    const now = new Map(
      planImport(listed, { prefix: prefixOf(server.entry), server: server.entry.name }).accepted
        .map((
          a,
        ) => [a.name, a]),
    );
    for (const [name, imported] of server.imported) {
      if (now.get(name)?.fingerprint !== imported.fingerprint && !server.changed.has(name)) {
        server.changed.add(name);
        this.host.remove(name);
      }
    }
    server.appeared = [...now.keys()].filter((name) => !server.imported.has(name));
  }

  /** The connection ended on its own (a crash, a closed stream): withdraw its tools. */
  #ended(server: Server, connection: Connection | undefined, why: string): void {
    if (!connection || server.connection !== connection) return;
    for (const name of server.imported.keys()) this.host.remove(name);
    server.state = "failed";
    server.error = `the connection ended: ${why}`;
    connection.close().catch(() => {});
  }

  /** Withdraws the tools and closes the connection, if any. */
  async #drop(server: Server): Promise<void> {
    for (const name of server.imported.keys()) this.host.remove(name);
    server.imported.clear();
    server.changed.clear();
    server.appeared = [];
    const connection = server.connection;
    server.connection = undefined;
    await connection?.close();
  }
}

function fail(content: string): ToolOutput {
  return { content, ok: false };
}

function prefixOf(entry: ServerEntry): string {
  return entry.prefix ?? entry.name;
}

function toolList(server: Server): string {
  const names = [...server.imported.keys()];
  return names.length ? `${names.length} tools: ${names.join(", ")}` : "no tools";
}

function connectedText(server: Server, connection: Connection): string {
  const { name, transport } = server.entry;
  const lines = [
    `Connected ${name} (${transport}, MCP ${connection.version}): ${toolList(server)}; ` +
    "offered from your next prompt",
  ];
  if (server.skipped.length) lines.push(`Not imported: ${server.skipped.join("; ")}`);
  return lines.join("\n");
}

function describeServer(server: Server): string {
  const { name, transport } = server.entry;
  const where = transport === "http"
    ? `http ${server.entry.url}`
    : `stdio ${server.entry.command}${server.entry.sandbox ? ", sandboxed" : ""}`;
  const connection = server.connection;
  if (server.state !== "connected" || !connection) {
    const why = server.state === "failed" ? `: ${server.error}` : "";
    return `${name}: ${server.state} (${where})${why}`;
  }
  const who = connection.server ? `; ${connection.server.name} ${connection.server.version}` : "";
  const lines = [
    `${name}: connected (${where}; MCP ${connection.version}, ${connection.era} era${who})`,
  ];
  const active = [...server.imported.keys()].filter((tool) => !server.changed.has(tool));
  lines.push(`  tools: ${active.length ? active.join(", ") : "none"}`);
  if (server.changed.size) {
    lines.push(
      `  disabled, changed after connect (run mcp_connect ${name}): ${
        [...server.changed].join(", ")
      }`,
    );
  }
  if (server.appeared.length) {
    lines.push(
      `  listed since connect, not imported (run mcp_connect ${name}): ${
        server.appeared.join(", ")
      }`,
    );
  }
  if (server.skipped.length) lines.push(`  not imported: ${server.skipped.join("; ")}`);
  return lines.join("\n");
}
