/**
 * One ACP session: an svc session in a worktree's runtime, the engine its turns run on (built
 * again when the mode or model changes; the approver with its "always" answers stays), the
 * running turn's abort, and the ordered stream of its `session/update`s.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { Engine, EngineEvent, Runtime, SessionLog, TurnResult } from "../runtime/mod.ts";
import { withSessionHooks } from "../runtime/session_hooks.ts";
import type { Approver } from "../tool/approval.ts";
import type { TerminalRunner, ToolImage } from "../tool/types.ts";
import type { EditorFiles } from "./files.ts";
import { callPath, eventUpdates, type UpdateContext } from "./updates.ts";

/** svc's two modes, as ACP session modes. */
export const MODES: acp.SessionMode[] = [
  { id: "build", name: "Build", description: "Edit files and run commands (the policy decides)" },
  { id: "plan", name: "Plan", description: "Read and plan only: svc's plan mode" },
];

export type Mode = "plan" | "build";

/** What an ACP session is made of. */
export interface AcpSessionParts {
  id: string;
  runtime: Runtime;
  session: SessionLog;
  /** The session existed before (SessionStart says `resume`). */
  resumed: boolean;
  approver: Approver;
  files: EditorFiles;
  /**
   * The editor's terminal for unsandboxed commands, when it offers terminals; `started` hears the
   * id of each terminal it creates.
   */
  terminal?: (started: (terminalId: string) => void) => TerminalRunner;
  /** Sends one update to the editor (the SDK's `session/update` notification). */
  notify(update: acp.SessionUpdate): Promise<void>;
  log(message: string): void;
}

export class AcpSession {
  readonly id: string;
  readonly runtime: Runtime;
  readonly session: SessionLog;
  readonly files: EditorFiles;
  readonly updates: UpdateContext;
  mode: Mode;
  /** The model the editor chose (config option or `/model`); undefined: the config's. */
  model?: string;
  /** The models offered in the model selector: the config's and those chosen since. */
  readonly models: string[] = [];
  #parts: AcpSessionParts;
  #engine?: Promise<Engine>;
  #running?: AbortController;
  #sent: Promise<void> = Promise.resolve();
  #resumed: boolean;
  #terminal?: TerminalRunner;

  constructor(parts: AcpSessionParts) {
    this.#parts = parts;
    this.id = parts.id;
    this.runtime = parts.runtime;
    this.session = parts.session;
    this.files = parts.files;
    this.#resumed = parts.resumed;
    this.#terminal = parts.terminal?.((terminalId) => this.terminalStarted(terminalId));
    this.mode = parts.runtime.config.mode ?? "build";
    this.updates = {
      worktree: parts.runtime.worktree,
      category: (tool) => parts.runtime.toolView().resolve(tool)?.category,
    };
  }

  /** Queues an update; updates reach the editor in the order they were sent. */
  send(update: acp.SessionUpdate): void {
    this.#sent = this.#sent.then(() => this.#parts.notify(update)).catch((err) =>
      this.#parts.log(`session/update failed: ${(err as Error).message}`)
    );
  }

  /** Resolves when every update sent so far has been written. */
  flushed(): Promise<void> {
    return this.#sent;
  }

  /** The engine of the session's mode and model, built on first use after a change. */
  engine(): Promise<Engine> {
    if (!this.#engine) {
      this.#engine = this.runtime.engine({
        headless: false,
        approver: this.#parts.approver,
        session: this.session,
        mode: this.mode,
        ...(this.files.access ? { files: this.files.access } : {}),
        ...(this.#terminal ? { terminal: this.#terminal } : {}),
        ...(this.model ? { model: this.model, modelFrom: "user" as const } : {}),
      });
      this.#engine.catch(() => this.#engine = undefined);
    }
    return this.#engine;
  }

  /** Switches mode or model: the next turn runs on a new engine. */
  configure(change: { mode?: Mode; model?: string }): void {
    if (change.mode) this.mode = change.mode;
    if (change.model) {
      this.model = change.model;
      if (!this.models.includes(change.model)) this.models.push(change.model);
    }
    this.#engine = undefined;
  }

  /** A file the prompt links, read with file_read as the REPL reads an `@file` mention. */
  async readLinked(path: string, signal: AbortSignal): Promise<{ ok: boolean; content: string }> {
    const engine = await this.engine();
    const read = await engine.runTool("file_read", JSON.stringify({ path }), {
      session: this.session,
      signal,
    });
    return { ok: read.ok, content: read.content };
  }

  /** Whether a turn is running. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Cancels the running turn as Ctrl-C does: it ends `cancelled`, its partial answer saved. */
  cancel(): void {
    this.#running?.abort(new Error("cancelled by the editor"));
  }

  /**
   * Runs one turn of `prompt` (with `images`, checked), streaming its updates; resolves its result
   * once all are sent.
   */
  async prompt(
    prompt: string,
    { signal, images }: { signal: AbortSignal; images?: readonly ToolImage[] },
  ): Promise<TurnResult> {
    if (this.#running) throw new Error("a turn is already running in this session");
    const running = new AbortController();
    this.#running = running;
    const turnSignal = AbortSignal.any([signal, running.signal]);
    try {
      const engine = await this.engine();
      const resumed = this.#resumed;
      this.#resumed = true;
      return await withSessionHooks(engine.deps, this.session, {
        resumed,
        warn: (message) => this.#parts.log(`warning: ${message}`),
        signal: turnSignal,
        run: () =>
          engine.runTurn(prompt, {
            session: this.session,
            signal: turnSignal,
            ...(images?.length ? { images } : {}),
            onEvent: (event) => this.#event(event),
          }),
      });
    } finally {
      this.#running = undefined;
      await this.flushed();
    }
  }

  /** A command of the running call started in the editor's terminal: the editor embeds it. */
  terminalStarted(terminalId: string): void {
    const call = [...this.#paths.keys()].at(-1);
    if (!call) return;
    this.#terminals.set(call, terminalId);
    const content: acp.ToolCallContent[] = [{ type: "terminal", terminalId }];
    this.send({ sessionUpdate: "tool_call_update", toolCallId: call, content });
  }

  /** One engine event: its updates, with the diff of a file edit, and its log line. */
  #event(event: EngineEvent): void {
    const worktree = this.runtime.worktree;
    if (event.type === "tool_start") {
      const edits = this.updates.category(event.name) === "edit";
      this.files.started({ id: event.call.id, path: callPath(event.args, worktree), edits });
    }
    for (const update of eventUpdates(event, this.updates)) {
      if (event.type === "tool_end" && update.sessionUpdate === "tool_call_update") {
        const path = this.#paths.get(event.id);
        const change = this.files.ended({ id: event.id, path, ok: event.ok });
        if (change) update.content = [{ type: "diff", ...change }, ...(update.content ?? [])];
        const terminalId = this.#terminals.get(event.id);
        if (terminalId) {
          update.content = [{ type: "terminal", terminalId }, ...(update.content ?? [])];
        }
      }
      this.send(update);
    }
    if (event.type === "tool_start") this.#paths.set(event.call.id, callPath(event.args, worktree));
    if (event.type === "tool_end") {
      this.#paths.delete(event.id);
      this.#terminals.delete(event.id);
    }
    if (event.type === "warning" || event.type === "error") {
      this.#parts.log(`${event.type}: ${event.message}`);
    }
  }

  /** The file of each running call, by call id (tool_end carries no arguments). */
  #paths = new Map<string, string | undefined>();
  /** The editor terminal of each running call that has one, by call id. */
  #terminals = new Map<string, string>();
}
