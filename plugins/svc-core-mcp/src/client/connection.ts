/**
 * One connection to an MCP server through the official client (`@modelcontextprotocol/client`
 * 2.x), loaded only when a server is connected. The client probes `server/discover` (the modern
 * era, 2026-07-28), negotiates a mutually supported revision when the server answers with an
 * unsupported-version error, and falls back to the `initialize` handshake (the legacy era). A
 * stdio server that quits on the probe is started once more and opened with `initialize`.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import manifest from "../../manifest.json" with { type: "json" };
import { cappedFetch } from "./capped_fetch.ts";
import { ChildTransport } from "./child_transport.ts";
import { serverCommand } from "./server_command.ts";
import { type Approve, type Ask, elicit, elicitNote, type ElicitParams } from "./elicitation.ts";
import { SvcOAuthProvider } from "../../../../src/tool/mcp_oauth_provider.ts";
import { isMachineClient, machineAuthProvider } from "../../../../src/tool/mcp_machine_auth.ts";
import type { SandboxSettings } from "../../../../src/tool/long_lived.ts";
import type {
  Connection,
  ConnectionEvents,
  McpCallResult,
  McpToolDef,
  ServerEntry,
} from "./types.ts";

/** The largest message (stdio) or response body (HTTP) a server may send: 16 MiB. */
export const MAX_MESSAGE_BYTES = 16 << 20;
/** The longest a stdio server may take to answer the `server/discover` probe. */
const STDIO_PROBE_MS = 10_000;

type Mode = "auto" | "legacy";

/** Options of `openConnection`. */
interface OpenOptions {
  worktree: string;
  signal: AbortSignal;
  events: ConnectionEvents;
  /** The sandbox an entry with `sandbox: true` starts in. */
  sandbox: SandboxSettings;
}

/** Opens a connection to `entry` (relative `cwd` against `worktree`); throws when it cannot. */
export async function openConnection(
  entry: ServerEntry,
  options: OpenOptions,
): Promise<Connection> {
  try {
    return await attempt(entry, "auto", options);
  } catch (err) {
    const cause = err instanceof ServerEnded ? err.cause : err;
    if (entry.transport !== "stdio" || !quitOnProbe(cause) || options.signal.aborted) throw err;
    return await attempt(entry, "legacy", options);
  }
}

/** A connect that failed because the server process ended; the message says how. */
export class ServerEnded extends Error {
  constructor(how: string, override readonly cause: unknown) {
    super(how);
  }
}

async function attempt(
  entry: ServerEntry,
  mode: Mode,
  options: OpenOptions,
): Promise<Connection> {
  const timeout = entry.timeout * 1000;
  const transport = await makeTransport(entry, options);
  let changed = () => {};
  const client = new Client({ name: "svc", version: manifest.version }, {
    // Form questions are answered through the front-end running the call (elicitation.ts).
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: {
      mode,
      probe: {
        timeoutMs: entry.transport === "stdio" ? Math.min(timeout, STDIO_PROBE_MS) : timeout,
      },
    },
    listChanged: { tools: { autoRefresh: false, onChanged: () => changed() } },
    // A modern-era server asks mid-call with input_required: the SDK answers it through the same
    // elicitation/create handler and retries the call.
    inputRequired: { autoFulfill: true, maxRounds: 5 },
  });
  const askers: Asker[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    const asker = askers.at(-1);
    if (!asker) return { action: "decline" as const }; // no call of svc's is waiting on it
    return await asker(request.params as ElicitParams);
  });
  try {
    await client.connect(transport, { timeout, signal: options.signal });
  } catch (err) {
    const timedOut = (err as { code?: unknown })?.code === "REQUEST_TIMEOUT" ||
      options.signal.aborted;
    const ended = transport instanceof ChildTransport && !timedOut
      ? await transport.endedWithin(500)
      : null;
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw ended ? new ServerEnded(ended, err) : err;
  }
  return new LiveConnection(client, transport, entry, {
    events: options.events,
    onChanged: (fn) => changed = fn,
    askers,
  });
}

/** Answers one elicitation for the call in progress. */
type Asker = (params: ElicitParams) => Promise<{ action: "accept" | "decline" | "cancel" }>;

async function makeTransport(
  entry: ServerEntry,
  { worktree, sandbox }: Pick<OpenOptions, "worktree" | "sandbox">,
): Promise<Transport> {
  if (entry.transport === "http") {
    // An entry that sends its own Authorization header keeps it; any other signs in with OAuth
    // when the server asks (svc mcp login), using the tokens stored for this URL only.
    // A machine client (oauth.grant client_credentials) gets its token by itself.
    const own = Object.keys(entry.headers).some((key) => key.toLowerCase() === "authorization");
    const authProvider = own
      ? undefined
      : isMachineClient(entry.oauth)
      ? await machineAuthProvider(entry.name, entry.oauth!)
      : await new SvcOAuthProvider({ server: entry.name, url: entry.url!, oauth: entry.oauth })
        .load();
    return new StreamableHTTPClientTransport(new URL(entry.url!), {
      requestInit: { headers: entry.headers },
      fetch: cappedFetch(MAX_MESSAGE_BYTES),
      ...(authProvider ? { authProvider } : {}),
    });
  }
  const { command, args } = serverCommand(entry.command!, entry.args);
  return new ChildTransport({
    command,
    args,
    cwd: resolveCwd(worktree, entry.cwd),
    env: entry.env,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    ...(entry.sandbox ? { sandbox: { settings: sandbox, worktree } } : {}),
  });
}

function resolveCwd(worktree: string, cwd: string | null): string {
  if (!cwd) return worktree;
  return cwd.startsWith("/") ? cwd : `${worktree}/${cwd}`;
}

/** The stdio server closed the pipe on the `server/discover` probe (some legacy servers do). */
function quitOnProbe(err: unknown): boolean {
  return (err as { code?: unknown })?.code === "ERA_NEGOTIATION_FAILED" &&
    /closed during the server\/discover probe/.test((err as Error).message);
}

class LiveConnection implements Connection {
  readonly era: string;
  readonly version: string;
  readonly server?: { name: string; version: string };
  #ended: string | null = null;
  #closing = false;

  readonly #askers: Asker[];

  constructor(
    readonly client: Client,
    readonly transport: Transport,
    readonly entry: ServerEntry,
    { events, onChanged, askers }: {
      events: ConnectionEvents;
      onChanged: (fn: () => void) => void;
      askers: Asker[];
    },
  ) {
    this.#askers = askers;
    this.era = client.getProtocolEra() ?? "legacy";
    this.version = client.getNegotiatedProtocolVersion() ?? "unknown";
    const info = client.getServerVersion();
    if (info) this.server = { name: String(info.name), version: String(info.version) };
    onChanged(() => {
      if (!this.#ended) events.onToolsChanged();
    });
    client.onclose = () => {
      if (this.#ended) return;
      const reason = transport instanceof ChildTransport ? transport.ended : null;
      this.#ended = this.#closing ? "disconnected" : reason ?? "the connection closed";
      if (!this.#closing) events.onEnded(this.#ended);
    };
  }

  get ended(): string | null {
    return this.#ended;
  }

  async listTools(signal?: AbortSignal): Promise<McpToolDef[]> {
    // The SDK prints a notice on stdout when asked for tools a server does not offer.
    if (!this.client.getServerCapabilities()?.tools) return [];
    const listed = await this.client.listTools(undefined, {
      timeout: this.entry.timeout * 1000,
      signal,
      cacheMode: "refresh",
    });
    return listed.tools as unknown as McpToolDef[];
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    { signal, ask, approve }: { signal: AbortSignal; ask: Ask; approve?: Approve },
  ): Promise<McpCallResult> {
    const notes: string[] = [];
    const server = this.entry.name;
    const asker: Asker = async (params) => {
      const answer = await elicit(params, { server, ask, approve });
      notes.push(elicitNote(params, { server, answer }));
      const { author: _, ...reply } = answer;
      return reply;
    };
    this.#askers.push(asker);
    try {
      const result = await this.client.callTool({ name, arguments: args }, {
        timeout: this.entry.timeout * 1000,
        signal,
      }) as McpCallResult;
      return notes.length ? { ...result, notes } : result;
    } finally {
      this.#askers.splice(this.#askers.indexOf(asker), 1);
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#ended ??= "disconnected";
    await this.client.close().catch(() => {});
    await this.transport.close().catch(() => {});
  }
}
