/**
 * svc's end of a sandboxed plugin: one Deno Worker per global or local plugin, created with
 * exactly the plugin's permissions (a Worker can only narrow svc's own), in a child process of its
 * own (sandbox_transport.ts). The Worker imports the entry and runs the hooks; tool calls and
 * commands are messages. Whatever the plugin does, svc goes on: a hook past its timeout, a call
 * past its time limit, a call that ignores a cancel past a grace period, a plugin that crashes or
 * runs out of memory is stopped (its process killed or gone) and the plugin reported errored
 * (while loading) or its pending calls failed (later).
 */
import { pathToFileURL } from "../util/file_url.ts";
import type { Config } from "../config/schema.ts";
import type { ElicitationDecision, ToolContext, ToolOutput } from "../tool/types.ts";
import { toolImages } from "../tool/images.ts";
import type { PluginGrant } from "./grant.ts";
import { HOOKS } from "./registrars.ts";
import type {
  CallContext,
  HostMessage,
  RegistrationData,
  WorkerMessage,
} from "./sandbox_protocol.ts";
import { elicitationRequest } from "./sandbox_data.ts";
import { openTransport, type Transport } from "./sandbox_transport.ts";
import type { JailPlace } from "./plugin_jail.ts";

/** How long a cancelled call may keep running before its Worker is stopped. */
export const CANCEL_GRACE_MS = 2000;
/**
 * The time limit of one tool call or command of a plugin, in milliseconds: the longest timeout of
 * a shell command (tool/shell.ts `MAX_TIMEOUT_S`). Past it the plugin's Worker is stopped.
 */
export const CALL_TIMEOUT_MS = 600_000;
/** Longest console line of a plugin that svc writes to stderr. */
const LOG_MAX_CHARS = 4000;
/** Console output of one plugin svc writes at most; later output is dropped. */
const LOG_BUDGET_CHARS = 1024 * 1024;
/** Load phases in order; a Worker can only move forward, so it cannot keep resetting a timer. */
const PHASES = ["import", ...HOOKS.map((h) => h.hook)];

/** What starting a sandbox needs. */
export interface SandboxStart {
  name: string;
  entryPath: string;
  grant: PluginGrant;
  /**
   * Longest wait for the entry import, for each hook and for each tool call or command (default
   * `CALL_TIMEOUT_MS`), in milliseconds.
   */
  timeouts: { import: number; hook: number; call?: number };
  /** Default: a child process when svc runs under `deno`, else a Worker in svc's process. */
  transport?: "process" | "worker";
  /** The worktree and sandbox settings a process granted `run` is sandboxed for. */
  place?: JailPlace;
}

interface Pending {
  settle(outcome: { output: ToolOutput } | { error: string }): void;
  /** Stops the call's time limit while svc answers a question or runs a delegation for it. */
  wait?(): () => void;
  ctx?: ToolContext;
  print?(text: string): void;
}

interface Loading {
  phase: string;
  timeouts: SandboxStart["timeouts"];
  timer?: ReturnType<typeof setTimeout>;
  done(outcome: RegistrationData | string): void;
}

/** Ids of configs sent to Workers; the same config object keeps its id. */
const configIds = new WeakMap<object, number>();
let lastConfigId = 0;

/** One sandboxed plugin's Worker. */
export class PluginSandbox {
  readonly name: string;
  #transport!: Transport;
  #stopped: string | null = null;
  #pending = new Map<number, Pending>();
  #sent = new Set<number>();
  #seq = 0;
  #logged = 0;
  #loading?: Loading;
  #callTimeout: number;
  #mayDelegate: boolean;

  private constructor(name: string, callTimeout: number, mayDelegate: boolean) {
    this.name = name;
    this.#callTimeout = callTimeout;
    this.#mayDelegate = mayDelegate;
  }

  /**
   * Starts the plugin's Worker (in its own process, see sandbox_transport.ts), imports the entry
   * and runs the hooks; resolves with the sandbox and its registrations as data, or with the
   * plugin's error message (`<hook> failed: ...`).
   */
  static async start(
    options: SandboxStart,
  ): Promise<{ sandbox: PluginSandbox; registrations: RegistrationData } | string> {
    const sandbox = new PluginSandbox(
      options.name,
      options.timeouts.call ?? CALL_TIMEOUT_MS,
      options.grant.delegate === true,
    );
    const transport = await openTransport(options.name, {
      grant: options.grant,
      events: {
        message: (message) => sandbox.#receive(message),
        ended: (reason) => sandbox.stop(reason),
      },
      kind: options.transport,
      place: options.place,
    });
    if (typeof transport === "string") return transport;
    sandbox.#transport = transport;
    const outcome = await sandbox.#load(pathToFileURL(options.entryPath).href, options.timeouts);
    if (typeof outcome === "string") {
      sandbox.stop(outcome);
      return outcome;
    }
    return { sandbox, registrations: outcome };
  }

  /** Why the Worker was stopped, or null while it runs. */
  get stopped(): string | null {
    return this.#stopped;
  }

  /** Runs one tool call in the Worker; rejects (a tool error) when the plugin throws or stops. */
  callTool(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    const configId = this.#configId(ctx.config);
    const parts: CallContext = {
      worktree: ctx.worktree,
      session: ctx.session,
      headless: ctx.headless,
      trusted: ctx.trusted === true,
      outsideApproved: ctx.outsideApproved === true,
      delegate: typeof ctx.delegate === "function",
      elicit: typeof ctx.elicit === "function",
      configId,
      ...(this.#sent.has(configId) ? {} : { config: sandboxConfig(ctx.config) }),
    };
    return this.#request(
      (id) => ({ t: "call", id, tool: name, args, ctx: parts }),
      { ctx },
      `tool ${name}`,
      ctx.signal,
    ).then((output) => {
      this.#sent.add(configId);
      return output;
    });
  }

  /** Runs one of the plugin's slash commands in the Worker. */
  async runCommand(name: string, args: string, io: { print(text: string): void }): Promise<void> {
    await this.#request(
      (id) => ({ t: "command", id, name, args }),
      { print: io.print },
      `command /${name}`,
    );
  }

  /**
   * Runs one of the plugin's hooks in the Worker, under the time limit of plugin calls; resolves
   * with what a hook command would print (its JSON output, or text).
   */
  async runHook(hook: number, input: Record<string, unknown>): Promise<string> {
    const output = await this.#request(
      (id) => ({ t: "hook", id, hook, input }),
      {},
      `hook ${hook}`,
    );
    return output.content;
  }

  /** Stops the plugin for good (its process is killed); pending calls fail with `reason`. */
  stop(reason = "closed"): void {
    if (this.#stopped !== null) return;
    this.#stopped = reason;
    this.#transport?.kill();
    const loading = this.#loading;
    if (loading) {
      const failed = loading.phase === "import" ? "Import failed" : `${loading.phase} failed`;
      loading.done(`${failed}: ${reason}`);
    }
    for (const pending of [...this.#pending.values()]) {
      pending.settle({ error: `plugin ${this.name} stopped: ${reason}` });
    }
  }

  #load(entry: string, timeouts: SandboxStart["timeouts"]): Promise<RegistrationData | string> {
    return new Promise((resolve) => {
      const loading: Loading = {
        phase: "import",
        timeouts,
        done: (outcome) => {
          clearTimeout(loading.timer);
          this.#loading = undefined;
          resolve(outcome);
        },
      };
      this.#loading = loading;
      this.#phase("import");
      this.#post({ t: "load", entry });
    }).then((outcome) => outcome as RegistrationData | string);
  }

  /** Starts timing a load phase; past its timeout the Worker is stopped. */
  #phase(phase: string): void {
    const loading = this.#loading;
    if (!loading || PHASES.indexOf(phase) < PHASES.indexOf(loading.phase)) return;
    if (phase === loading.phase && loading.timer !== undefined) return;
    clearTimeout(loading.timer);
    loading.phase = phase;
    const ms = phase === "import" ? loading.timeouts.import : loading.timeouts.hook;
    loading.timer = setTimeout(() => this.stop(`timed out after ${ms} ms`), ms);
  }

  /**
   * Sends a call or command (`what`, for messages) and waits for its result; watches its time
   * limit and cancellation.
   */
  #request(
    message: (id: number) => HostMessage,
    handlers: Omit<Pending, "settle">,
    what: string,
    signal?: AbortSignal,
  ): Promise<ToolOutput> {
    if (this.#stopped !== null) {
      return Promise.reject(new Error(`plugin ${this.name} stopped: ${this.#stopped}`));
    }
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      let grace: ReturnType<typeof setTimeout> | undefined;
      // A call that never ends (a loop, a promise never settled) stops the plugin: its process is
      // killed, and this call and the plugin's later ones fail with the reason. Time svc spends
      // answering the call (a question to a person, a sub-agent) does not count.
      const expire = () =>
        this.stop(
          `${what} did not finish within the time limit of plugin calls ` +
            `(${formatLimit(this.#callTimeout)})`,
        );
      let remaining = this.#callTimeout;
      let since = performance.now();
      let limit: ReturnType<typeof setTimeout> | undefined = setTimeout(expire, remaining);
      let waits = 0;
      let settled = false;
      const wait = () => {
        if (waits++ === 0) {
          clearTimeout(limit);
          remaining -= performance.now() - since;
        }
        let done = false;
        return () => {
          if (done || --waits > 0 || settled) return;
          done = true;
          since = performance.now();
          limit = setTimeout(expire, Math.max(0, remaining));
        };
      };
      const onAbort = () => {
        this.#post({ t: "cancel", id });
        grace = setTimeout(
          () => this.stop(`a cancelled call did not end within ${CANCEL_GRACE_MS} ms`),
          CANCEL_GRACE_MS,
        );
      };
      this.#pending.set(id, {
        ...handlers,
        wait,
        settle: (outcome) => {
          settled = true;
          this.#pending.delete(id);
          clearTimeout(grace);
          clearTimeout(limit);
          signal?.removeEventListener("abort", onAbort);
          if ("output" in outcome) resolve(outcome.output);
          else reject(new Error(outcome.error));
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#post(message(id));
      if (signal?.aborted) onAbort();
    });
  }

  #receive(message: WorkerMessage): void {
    if (this.#stopped !== null || !message || typeof message !== "object") return;
    switch (message.t) {
      case "phase":
        this.#phase(String(message.phase));
        break;
      case "loaded":
        this.#loading?.done(message.registrations);
        break;
      case "failed":
        this.#loading?.done(String(message.error));
        break;
      case "result":
        this.#pending.get(message.id)?.settle({ output: plainOutput(message.output) });
        break;
      case "error":
        this.#pending.get(message.id)?.settle({ error: this.#explain(message) });
        break;
      case "status":
        this.#pending.get(message.id)?.ctx?.status(String(message.line));
        break;
      case "print":
        this.#pending.get(message.id)?.print?.(String(message.text));
        break;
      case "ask":
        this.#answer(message.req, message.id, () => this.#ask(message.id, message.request));
        break;
      case "elicit":
        this.#answer(message.req, message.id, () => this.#elicit(message.id, message.request));
        break;
      case "delegate":
        this.#answer(
          message.req,
          message.id,
          () => this.#delegate(message.id, message.type, message.task),
        );
        break;
      case "log":
        this.#log(String(message.text).slice(0, LOG_MAX_CHARS));
        break;
    }
  }

  /** A thrown error's message; a refused permission says that the manifest does not grant it. */
  #explain(message: { message: string; denied?: boolean }): string {
    const text = String(message.message);
    if (message.denied !== true) return text;
    return `${text.replace(/, run again with the --allow-\w+ flag\.?$/, "")}: plugin ` +
      `${this.name} is not granted it (see "permissions" in its manifest.json)`;
  }

  #log(text: string): void {
    if (this.#logged > LOG_BUDGET_CHARS) return;
    this.#logged += text.length;
    console.error(
      this.#logged > LOG_BUDGET_CHARS
        ? `[plugin ${this.name}] further console output dropped`
        : `[plugin ${this.name}] ${text}`,
    );
  }

  #ask(id: number, request: unknown): Promise<string | null> {
    const ctx = this.#pending.get(id)?.ctx;
    const r = (request ?? {}) as Record<string, unknown>;
    if (!ctx || typeof r.question !== "string") return Promise.resolve(null);
    return ctx.ask({
      question: r.question,
      ...(typeof r.context === "string" ? { context: r.context } : {}),
      ...(Array.isArray(r.options) ? { options: r.options.map(String) } : {}),
      target: r.target === "lead" ? "lead" : "human",
    });
  }

  /** Puts a server's question to the configured approver; null (undecided) when there is none. */
  #elicit(id: number, request: unknown): Promise<ElicitationDecision | null> {
    const elicit = this.#pending.get(id)?.ctx?.elicit;
    const checked = elicitationRequest(request);
    return elicit && checked ? elicit(checked) : Promise.resolve(null);
  }

  /**
   * Runs a sub-agent for one of the plugin's calls: only for a plugin whose manifest asks for
   * `delegate` (checked here: the plugin's code can post any message), through the engine's one
   * delegation path, which enforces the depth cap.
   */
  async #delegate(id: number, type: unknown, task: unknown): Promise<ToolOutput> {
    if (!this.#mayDelegate) {
      return {
        content: `Error: plugin ${this.name} may not delegate: its manifest does not ask for it ` +
          `(add "delegate": true to "permissions" in its manifest.json)`,
        ok: false,
      };
    }
    const delegate = this.#pending.get(id)?.ctx?.delegate;
    if (!delegate) return { content: "Error: delegation is not available here", ok: false };
    return plainOutput(await delegate(String(type), String(task)));
  }

  /** Answers the Worker's request `req` for call `id`; the call's time limit waits meanwhile. */
  #answer(req: number, id: number, value: () => Promise<unknown>): void {
    const resume = this.#pending.get(id)?.wait?.();
    let answer: Promise<unknown>;
    try {
      answer = value();
    } catch {
      answer = Promise.resolve(null);
    }
    answer.catch(() => null).then((result) => {
      resume?.();
      this.#post({ t: "answer", req, value: result });
    });
  }

  #post(message: HostMessage): void {
    if (this.#stopped === null) this.#transport.send(message);
  }

  #configId(config: Readonly<Config>): number {
    let id = configIds.get(config);
    if (id === undefined) configIds.set(config, id = ++lastConfigId);
    return id;
  }
}

/**
 * The config a sandboxed plugin sees: everything but the values of the MCP servers' `headers` and
 * `env`, which may hold tokens for other services.
 */
export function sandboxConfig(config: Readonly<Config>): Config {
  const hide = (values: Record<string, string>) =>
    Object.fromEntries(Object.keys(values).map((key) => [key, "[hidden]"]));
  return {
    ...config,
    "mcp.servers": config["mcp.servers"].map((server) => ({
      ...server,
      headers: hide(server.headers),
      env: hide(server.env),
    })),
  };
}

/** A time limit as people read it: `600 s`, or `250 ms` below a second. */
function formatLimit(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function plainOutput(out: unknown): ToolOutput {
  const record = (out ?? {}) as Record<string, unknown>;
  return {
    content: String(record.content ?? ""),
    ...(record.ok === false ? { ok: false } : {}),
    ...(typeof record.status === "string" ? { status: record.status } : {}),
    ...(toolImages(record.images) ? { images: toolImages(record.images) } : {}),
  };
}
