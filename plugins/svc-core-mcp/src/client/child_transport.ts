/**
 * MCP over stdio with a server svc starts. The SDK's StdioClientTransport cannot start a process
 * in its own group or under a parent-death signal, so this one spawns with Deno.Command and
 * reuses the SDK's message parsing (`deserializeMessage`, `serializeMessage`; the framing is
 * lines.ts, as the SDK's is quadratic in the message size) and its safe environment
 * (`getDefaultEnvironment`: HOME, LOGNAME, PATH, SHELL, TERM, USER), to which svc adds its proxy
 * and certificate settings (src/tool/network_env.ts: a server started with `npx -y` or
 * `deno run npm:` downloads itself) and the entry's `env`; never svc's other variables, so no API
 * key a user exported reaches a server. A line that is not JSON-RPC (a banner) is skipped; a
 * message over the size cap ends the connection; stderr is kept only as a short tail for error
 * messages. An entry with `sandbox: true` starts inside svc's OS sandbox with its limits
 * (src/tool/long_lived.ts; no CPU-time limit), and its private temp folder goes when it ends.
 */
import {
  deserializeMessage,
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { signalGroup } from "../../../../src/plugin/api.ts";
import { withNetworkEnv } from "../../../../src/tool/network_env.ts";
import {
  planLongLived,
  type PlannedCommand,
  type SandboxSettings,
} from "../../../../src/tool/long_lived.ts";
import { guarded, track, untrack } from "./children.ts";
import { LineSplitter } from "./lines.ts";
import { cutText } from "../../../../src/tool/text.ts";

/** How a server is started. */
export interface ChildSpec {
  command: string;
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /**
   * Added to the safe default environment and svc's network settings (which it overrides; an
   * empty value removes one of those).
   */
  env: Record<string, string>;
  /** Largest message accepted, in bytes. */
  maxMessageBytes: number;
  /** Start it inside svc's OS sandbox with these settings (the entry's `sandbox: true`). */
  sandbox?: { settings: SandboxSettings; worktree: string };
}

/** Characters of stderr kept for error messages. */
const STDERR_TAIL = 2000;
/** How long `close` waits after closing stdin, and again after SIGTERM. */
const CLOSE_GRACE_MS = 1000;

export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #child?: Deno.ChildProcess;
  #started = false;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #stdout?: ReadableStreamDefaultReader<Uint8Array>;
  #stderr?: ReadableStreamDefaultReader<Uint8Array>;
  #lines: LineSplitter;
  #decoder = new TextDecoder();
  #stderrTail = "";
  #ended: string | null = null;
  #closing = false;
  /** A write found the pipe broken: the server had gone before anyone closed it. */
  #brokenPipe = false;
  #byItself = false;
  /** Settles once the server has exited and its output is read. */
  #done?: Promise<void>;
  #encoder = new TextEncoder();

  constructor(readonly spec: ChildSpec) {
    this.#lines = new LineSplitter(spec.maxMessageBytes);
  }

  /** The server's pid while it runs (with `stderr`, how the SDK recognizes a stdio transport). */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** Not exposed: svc keeps only a tail of it (see `ended`). */
  get stderr(): null {
    return null;
  }

  /** Why the server is gone (exit code or signal, a size overrun, and its last stderr lines). */
  get ended(): string | null {
    return this.#ended;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("ChildTransport already started");
    this.#started = true;
    const planned = await this.#plan();
    const { command, args } = guarded(planned.command, planned.args);
    try {
      this.#child = new Deno.Command(command, {
        args,
        cwd: this.spec.cwd,
        clearEnv: true,
        env: planned.env,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        detached: true,
      }).spawn();
    } catch (err) {
      await planned.cleanup();
      const why = err instanceof Deno.errors.NotFound
        ? `${this.spec.command} was not found (or the folder ${this.spec.cwd} does not exist)`
        : (err as Error).message;
      throw new Error(`cannot start ${this.spec.command}: ${why}`);
    }
    const child = this.#child;
    track(child.pid);
    this.#writer = child.stdin.getWriter();
    this.#writer.closed.catch(() => {}); // a server that exits breaks the pipe; seen via status
    this.#stdout = child.stdout.getReader();
    this.#stderr = child.stderr.getReader();
    const reading = Promise.all([this.#readStdout(), this.#readStderr()]);
    this.#done = child.status.then(async (status) => {
      untrack(child.pid);
      // Whatever the group left behind (a wrapper's children) goes with it.
      signalGroup(child.pid, "SIGKILL");
      await planned.cleanup();
      // Output still in the pipes is read; a descendant that escaped the group and holds them
      // open does not keep the connection alive.
      if (!await settlesWithin(reading, CLOSE_GRACE_MS)) {
        await Promise.all([this.#stdout?.cancel(), this.#stderr?.cancel()]).catch(() => {});
      }
      this.#byItself = !this.#closing || this.#brokenPipe;
      this.#ended ??= this.#byItself ? exitText(status) : "disconnected";
      const tail = this.#stderrTail.trim().split("\n").slice(-3).join(" | ").slice(-500);
      if (tail && this.#byItself) this.#ended += `; its stderr ended with: ${tail}`;
      this.onclose?.();
    });
  }

  /** The command line that starts the server: as configured, or inside the OS sandbox. */
  async #plan(): Promise<Pick<PlannedCommand, "command" | "args" | "env" | "cleanup">> {
    const { command, args } = this.spec;
    const env = withNetworkEnv(getDefaultEnvironment(), this.spec.env);
    if (!this.spec.sandbox) return { command, args, env, cleanup: () => Promise.resolve() };
    const plan = await planLongLived({ command, args }, {
      ...this.spec.sandbox,
      cwd: this.spec.cwd,
      env,
    });
    if (!plan.ok) throw new Error(plan.error);
    return plan.command;
  }

  /**
   * How the server ended when it exited by itself within `ms` (a failed start, a crash), else
   * null; lets a failed connect say why instead of "the connection closed".
   */
  async endedWithin(ms: number): Promise<string | null> {
    if (!this.#done || !await settlesWithin(this.#done, ms)) return null;
    return this.#byItself ? this.#ended : null;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#ended) throw new Error(`the server is gone (${this.#ended})`);
    try {
      await this.#writer.write(this.#encoder.encode(serializeMessage(message)));
    } catch (err) {
      // The server exited (a failed exec under setpriv): the SDK closes the transport next, and
      // the exit must still read as the server's own.
      this.#brokenPipe = true;
      throw err;
    }
  }

  /** Closes stdin, then SIGTERM and SIGKILL to the group if the server does not exit in time. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#closing) return;
    this.#closing = true;
    await this.#writer?.close().catch(() => {});
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (await exitsWithin(child, CLOSE_GRACE_MS)) break;
      signalGroup(child.pid, signal);
    }
    await child.status;
  }

  async #readStdout(): Promise<void> {
    const reader = this.#stdout!;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        let lines: Uint8Array[];
        try {
          lines = this.#lines.push(value);
        } catch {
          this.#ended = `the server sent a message over ${this.spec.maxMessageBytes} bytes`;
          signalGroup(this.#child!.pid, "SIGKILL");
          return;
        }
        for (const line of lines) this.#deliver(line);
      }
    } catch {
      // the stream broke with the process; its exit says why
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  /** One line: a JSON-RPC message, or something else (a banner, a log line), skipped. */
  #deliver(line: Uint8Array): void {
    const text = this.#decoder.decode(line).replace(/\r$/, "");
    if (!text.trim()) return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch {
      this.onerror?.(new Error(`skipped a line that is not JSON-RPC: ${cutText(text, 200)}`));
      return;
    }
    this.onmessage?.(message);
  }

  async #readStderr(): Promise<void> {
    const reader = this.#stderr!;
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        this.#stderrTail = (this.#stderrTail + decoder.decode(value, { stream: true }))
          .slice(-STDERR_TAIL);
      }
    } catch {
      // as above
    } finally {
      await reader.cancel().catch(() => {});
    }
  }
}

function exitsWithin(child: Deno.ChildProcess, ms: number): Promise<boolean> {
  return settlesWithin(child.status, ms);
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  const settled = await Promise.race([promise.then(() => true, () => true), timeout]);
  clearTimeout(timer);
  return settled;
}

function exitText(status: Deno.CommandStatus): string {
  return status.signal
    ? `the server was killed by ${status.signal}`
    : status.code === 0
    ? "the server exited"
    : `the server exited with code ${status.code}`;
}
