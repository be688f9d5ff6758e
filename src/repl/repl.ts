/**
 * The REPL: keys in, turns and slash commands out, one task at a time. The input line stays live
 * while a task runs: Enter then queues the prompt (shown as queued), Esc or Ctrl-C cancels the
 * task (a cancelled turn keeps and saves its partial answer). Ctrl-C on idle input clears it, a
 * second one on an empty line exits; Ctrl-D on an empty line exits. Engines come only from the
 * runtime; every slash command is logged in the session as a `command` message (never sent to
 * the provider); the first user message of a new session names its file.
 */
import type { Engine } from "../engine/engine.ts";
import type { EngineEvent } from "../engine/events.ts";
import type { AskRequest } from "../tool/types.ts";
import type { Approval, ApprovalRequest } from "../tool/approval.ts";
import type { ConnectedModel } from "../runtime/connection.ts";
import type { Runtime, RuntimeInit } from "../runtime/runtime.ts";
import type { SessionLog } from "../session/log.ts";
import { VERSION } from "../version.ts";
import type { Command, CommandContext, Display } from "./slash_command.ts";
import { parseCommand } from "./slash_command.ts";
import { Editor } from "./editor.ts";
import type { History } from "./history.ts";
import { KeyDecoder, type KeyEvent } from "./keys.ts";
import { confirmPrompt, linePrompt, permissionPrompt, type Prompt } from "./prompts.ts";
import { type LiveView, Screen } from "./screen.ts";
import { makeStyle, type Style } from "./style.ts";
import type { Terminal } from "./terminal.ts";
import { summarize, TurnView } from "./turn_view.ts";
import { clip } from "./width.ts";

/** The display keys' defaults (SPEC), used until the config is loaded. */
export const DEFAULT_DISPLAY: Display = {
  show_thinking: false,
  glyph_lines: true,
  tool_status_visible: true,
  show_context_size: true,
  show_version: true,
  clear_screen: true,
  markdown_streaming: false,
  delegate_echo: true,
};

/** How long a lone ESC waits for the rest of a sequence before it is the Esc key (ms). */
const ESC_WAIT_MS = 30;
const SPINNER_MS = 80;

/** What a REPL is started with. */
export interface ReplOptions {
  terminal: Terminal;
  /** Colors (false: NO_COLOR). */
  color: boolean;
  init: RuntimeInit;
  /** The persisted input history. */
  history: History;
}

interface Task {
  label: string;
  controller: AbortController;
  view: TurnView | null;
}

export class Repl {
  readonly terminal: Terminal;
  style: Style;
  display: Display = { ...DEFAULT_DISPLAY };
  readonly screen: Screen;
  readonly editor: Editor;
  runtime: Runtime | null = null;
  engine: Engine | null = null;
  engineError = "loading...";
  connection: ConnectedModel | null = null;
  session: SessionLog | null = null;
  /** The session is new: its first user message names it. */
  #fresh = true;
  commands: readonly Command[] = [];
  #prompts: Prompt[] = [];
  #task: Task | null = null;
  #queue: string[] = [];
  #notice = "";
  #armed = false;
  #exiting = false;
  #code = 0;
  #finished = false;
  #done: Promise<number>;
  #resolveDone!: (code: number) => void;
  #decoder = new KeyDecoder();
  #escTimer: ReturnType<typeof setTimeout> | undefined;
  #spinner: ReturnType<typeof setInterval> | undefined;
  #frame = 0;
  #ctxSize = "";
  #unresize: () => void = () => {};

  constructor(readonly options: ReplOptions) {
    this.terminal = options.terminal;
    this.style = makeStyle(options.color, true);
    this.editor = new Editor(options.history.entries);
    this.screen = new Screen(this.terminal, () => this.#live(), { tty: true });
    this.#done = new Promise((resolve) => this.#resolveDone = resolve);
  }

  /** Shows the prompt, loads the runtime, then reads keys until the REPL exits. */
  run(load: () => Promise<void>): Promise<number> {
    this.terminal.start();
    this.#unresize = this.terminal.onResize(() => this.screen.paint());
    this.screen.paint();
    void this.#readKeys();
    this.#start("loading", async () => await load());
    return this.#done;
  }

  /** The banner: the version (show_version) and how to get help. */
  banner(): void {
    this.screen.commit(
      `${this.style.bold("svc")}${this.display.show_version ? ` ${VERSION}` : ""} ${
        this.style.dim("· /help lists the commands · Ctrl-D exits")
      }`,
    );
  }

  /** Applies the loaded config's display keys. */
  applyDisplay(config: Display): void {
    for (const key of Object.keys(DEFAULT_DISPLAY) as (keyof Display)[]) {
      this.display[key] = config[key];
    }
    this.style = makeStyle(this.options.color, this.display.glyph_lines);
  }

  /** Builds the engine for the config's model, or `choice`; a failure keeps the old engine. */
  async useModel(choice: { provider?: string; model?: string } = {}): Promise<void> {
    const runtime = this.runtime!;
    const other = Boolean(choice.provider || choice.model);
    const picked = other
      ? { provider: choice.provider, model: choice.model, modelFrom: "user" as const }
      : {};
    try {
      const connection = await runtime.connect(
        other ? { ...picked, approveModel: undefined } : {},
      );
      this.engine = await runtime.engine({
        headless: false,
        approver: (request, signal) => this.#approve(request, signal),
        askHuman: (request, signal) => this.#askHuman(request, signal),
        ...picked,
      });
      this.connection = connection;
      this.engineError = "";
      for (const warning of connection.warnings) this.warn(warning);
      if (other) this.print(`now using ${connection.provider}/${connection.model}`);
    } catch (err) {
      const message = (err as Error).message;
      if (other) this.error(message);
      else {
        this.engine = null;
        this.connection = null;
        this.engineError = `${message} (/connect sets up a backend)`;
        this.warn(this.engineError);
      }
    }
    this.#updateContext();
  }

  /** Switches sessions. */
  useSession(session: SessionLog, fresh: boolean): void {
    this.session = session;
    this.#fresh = fresh;
    this.#updateContext();
  }

  print(text: string): void {
    this.screen.commit(text);
  }

  error(text: string): void {
    this.screen.commit(this.style.red(text));
  }

  warn(text: string): void {
    this.screen.commit(this.style.yellow(`warning: ${text}`));
  }

  /** Asks the gate question of an unapproved model. */
  confirmModel(provider: string, model: string): Promise<boolean> {
    return this.confirm(
      `Approve model ${provider}/${model}? It is not in ~/.config/svc/models.json yet`,
    );
  }

  confirm(question: string): Promise<boolean> {
    return new Promise((resolve) => this.#push(confirmPrompt(question, resolve)));
  }

  ask(
    question: string,
    options: { mask?: boolean; signal?: AbortSignal } = {},
  ): Promise<string | null> {
    return new Promise((resolve) => {
      const prompt = linePrompt([question], resolve, { mask: options.mask });
      this.#push(prompt, options.signal);
    });
  }

  /** Ends the REPL: a running task is cancelled first (its partial output is saved). */
  exit(code = 0): void {
    this.#code = code;
    this.#exiting = true;
    for (const prompt of this.#prompts.splice(0)) prompt.abandon();
    if (this.#task) this.#task.controller.abort();
    else this.#finish();
  }

  // ---- keys ---------------------------------------------------------------------------------

  async #readKeys(): Promise<void> {
    for await (const chunk of this.terminal.input()) {
      if (this.#finished) return;
      this.#keys(this.#decoder.feed(chunk));
      if (this.#decoder.waiting) {
        clearTimeout(this.#escTimer);
        this.#escTimer = setTimeout(() => this.#keys(this.#decoder.flush()), ESC_WAIT_MS);
      }
    }
    // Input ended (terminal closed): leave like Ctrl-D.
    if (!this.#finished) this.exit();
  }

  #keys(keys: KeyEvent[]): void {
    for (const key of keys) {
      if (this.#finished) return;
      this.#key(key);
    }
    // Keys echo at once; streamed output waits for the next frame.
    this.screen.paint();
  }

  #key(key: KeyEvent): void {
    const interrupt = key.ctrl && key.name === "c";
    if (!interrupt) {
      this.#armed = false;
      if (this.#notice) this.#notice = "";
    }
    const prompt = this.#prompts.at(-1);
    if (prompt) {
      const result = prompt.key(key);
      if (result.done) this.#prompts.pop();
      if (result.interrupt) this.#cancel();
      return;
    }
    if (this.#task && (interrupt || key.name === "escape") && !this.editor.searching) {
      this.#cancel();
      return;
    }
    const action = this.editor.handle(key);
    switch (action.type) {
      case "submit":
        return this.#submit(action.text);
      case "exit":
        return this.exit();
      case "interrupt":
        if (this.#armed) return this.exit();
        this.#armed = true;
        this.#notice = "Press Ctrl-C again to exit (or Ctrl-D)";
        return;
      case "tab":
        void this.#complete();
        return;
    }
  }

  #cancel(): void {
    if (!this.#task || this.#task.controller.signal.aborted) return;
    this.#task.controller.abort();
    this.#notice = "cancelling...";
  }

  async #complete(): Promise<void> {
    const { complete, commonPrefix } = await import("./complete.ts");
    const text = this.editor.text;
    const cursor = this.editor.cursor;
    const found = await complete(text, cursor, this.commands, (kind) => this.#names(kind))
      .catch(() => null);
    if (!found || this.editor.text !== text || this.editor.cursor !== cursor) return;
    const prefix = commonPrefix(found.candidates);
    const single = found.candidates.length === 1;
    const replacement = single ? `${found.candidates[0]} ` : prefix;
    if (replacement.length > found.end - found.start || single) {
      this.editor.replace(found.start, found.end, replacement);
    } else {
      this.editor.hint = found.candidates.slice(0, 40).join("  ");
    }
    this.screen.paint();
  }

  async #names(kind: string): Promise<readonly string[]> {
    const runtime = this.runtime;
    if (!runtime) return [];
    switch (kind) {
      case "commands":
        return this.commands.map((c) => c.name);
      case "sessions":
        return await runtime.sessions.list();
      case "types":
        return [...(await runtime.catalog()).types.keys()];
      case "teams":
        return [...(await runtime.catalog()).teams.keys()];
      case "skills":
        return [...(await runtime.catalog()).skills.keys()];
      case "servers":
        return runtime.config["mcp.servers"].map((s) => s.name);
      case "tools":
        return this.engine ? this.engine.offeredTools().map((t) => t.name) : [];
      case "providers": {
        const { connectChoices } = await import("../runtime/connect.ts");
        return connectChoices(runtime.plugins.providers);
      }
      case "keys": {
        const { ConfigSchema } = await import("../config/schema.ts");
        return Object.keys(ConfigSchema.shape);
      }
    }
    return [];
  }

  // ---- tasks --------------------------------------------------------------------------------

  #submit(text: string): void {
    if (!text.trim()) return;
    void this.options.history.add(text);
    if (this.#task) {
      this.#queue.push(text);
      return;
    }
    this.#startInput(text);
  }

  #startInput(text: string): void {
    this.screen.commit(`${this.style.cyan(this.style.glyphs.prompt)} ${text}`);
    const command = parseCommand(text);
    if (command) {
      this.#start(
        `/${command.name}`,
        (signal) => this.#command(command.name, command.args, text, signal),
      );
    } else this.#start("turn", (signal) => this.#turn(text, signal));
  }

  #start(label: string, body: (signal: AbortSignal) => Promise<void>): void {
    const task: Task = { label, controller: new AbortController(), view: null };
    this.#task = task;
    this.#spinner = setInterval(() => {
      this.#frame++;
      this.screen.schedule();
    }, SPINNER_MS);
    body(task.controller.signal).catch((err) => this.error(`error: ${(err as Error).message}`))
      .finally(() => {
        clearInterval(this.#spinner);
        this.#task = null;
        if (this.#notice === "cancelling...") this.#notice = "";
        for (const prompt of this.#prompts.splice(0)) prompt.abandon();
        if (this.#exiting) return this.#finish();
        const next = this.#queue.shift();
        if (next !== undefined) this.#startInput(next);
        this.screen.paint();
      });
  }

  async #turn(text: string, signal: AbortSignal): Promise<void> {
    const session = this.session!;
    if (!this.engine) return this.error(this.engineError);
    if (this.#fresh && !session.data.messages.some((m) => m.role === "user")) {
      const { interactiveName } = await import("../session/naming.ts");
      await session.rename(interactiveName(new Date(), text));
      this.#fresh = false;
    }
    const view = new TurnView((t) => this.screen.commit(t), this.style, this.display);
    this.#task!.view = view;
    const result = await this.engine.runTurn(text, {
      session,
      signal,
      onEvent: (event) => {
        view.event(event);
        this.screen.schedule();
      },
    });
    view.finish(result);
    const usage = result.usage;
    this.#updateContext(
      usage?.prompt_tokens !== undefined
        ? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0)
        : undefined,
    );
  }

  async #command(name: string, args: string, text: string, signal: AbortSignal): Promise<void> {
    const { findCommand } = await import("./slash_command.ts");
    const command = findCommand(this.commands, name);
    if (!command) {
      return this.error(`unknown command /${name}; /help lists the commands`);
    }
    if (command.name !== "exit" && this.session) {
      await this.session.appendMessage({
        role: "command",
        content: text,
        timestamp: new Date().toISOString(),
      }).catch((err) => this.warn(`could not log the command: ${(err as Error).message}`));
    }
    await command.run(this.#context(signal), args);
    this.#updateContext();
  }

  #context(signal: AbortSignal): CommandContext {
    // deno-lint-ignore no-this-alias
    const repl = this;
    return {
      get runtime() {
        return repl.runtime!;
      },
      get engine() {
        return repl.engine;
      },
      get engineError() {
        return repl.engineError;
      },
      get connection() {
        return repl.connection;
      },
      get session() {
        return repl.session!;
      },
      get style() {
        return repl.style;
      },
      display: this.display,
      commands: this.commands,
      signal,
      print: (text) => this.print(text),
      error: (text) => this.error(text),
      ask: (question, options) => this.ask(question, { mask: options?.mask, signal }),
      confirm: (question) => this.confirm(question),
      events: () => {
        const view = new TurnView((t) => this.screen.commit(t), this.style, this.display);
        if (this.#task) this.#task.view = view;
        return {
          onEvent: (event: EngineEvent) => {
            view.event(event);
            this.screen.schedule();
          },
          finish: () => {
            view.finish();
            if (this.#task?.view === view) this.#task.view = null;
          },
        };
      },
      useSession: (session, { fresh }) => this.useSession(session, fresh),
      useModel: (choice) => this.useModel(choice),
      reload: () => this.reload(),
      exit: () => {
        this.#exiting = true;
      },
    };
  }

  /** Reloads config, plugins, catalog and the engine (the session stays). */
  async reload(): Promise<void> {
    const { Runtime } = await import("../runtime/runtime.ts");
    const old = this.runtime;
    const runtime = await Runtime.load(this.options.init);
    old?.plugins.close();
    this.runtime = runtime;
    this.applyDisplay(runtime.config);
    for (const warning of runtime.warnings) this.warn(warning);
    await this.useModel();
  }

  // ---- questions from the engine -----------------------------------------------------------

  #push(prompt: Prompt, signal?: AbortSignal): void {
    if (this.#exiting || signal?.aborted) {
      prompt.abandon();
      return;
    }
    this.#prompts.push(prompt);
    signal?.addEventListener("abort", () => {
      const at = this.#prompts.indexOf(prompt);
      if (at >= 0) {
        this.#prompts.splice(at, 1);
        prompt.abandon();
        this.screen.schedule();
      }
    }, { once: true });
    this.screen.paint();
  }

  #approve(request: ApprovalRequest, signal: AbortSignal): Promise<Approval> {
    return new Promise((resolve) => {
      const question = `${this.style.yellow("?")} Allow ${request.tool} ${
        summarize(request.args)
      } ${this.style.dim(`(${request.reason})`)}`;
      this.#push(
        permissionPrompt(question, (answer) => {
          const said = answer === "once"
            ? "allowed once"
            : answer === "always"
            ? "allowed for this session"
            : "denied";
          this.screen.commit(this.style.dim(`${said}: ${request.tool} ${summarize(request.args)}`));
          resolve({ answer, by: "user" });
        }),
        signal,
      );
    });
  }

  async #askHuman(request: AskRequest, signal: AbortSignal): Promise<string | null> {
    const lines = [`${this.style.yellow("?")} ${request.question}`];
    if (request.context) lines.push(this.style.dim(request.context));
    const options = request.options ?? [];
    options.forEach((option, i) => lines.push(`  ${i + 1}. ${option}`));
    const answer = await new Promise<string | null>((resolve) => {
      this.#push(linePrompt(lines, resolve), signal);
    });
    if (answer === null) return "(the user dismissed the question without an answer)";
    const picked = /^\d+$/.test(answer.trim()) ? options[Number(answer.trim()) - 1] : undefined;
    const reply = picked ?? answer;
    this.screen.commit(`${this.style.dim(`${request.question} →`)} ${reply}`);
    return reply;
  }

  // ---- screen -------------------------------------------------------------------------------

  #updateContext(tokens?: number): void {
    if (tokens !== undefined) {
      this.#ctxSize = `ctx ${compactNumber(tokens)} tokens`;
      return;
    }
    const session = this.session;
    if (!session) return;
    let from = 0;
    const log = session.data.messages;
    for (let i = log.length - 1; i >= 0; i--) {
      if (log[i].compact_from !== undefined) {
        from = log[i].compact_from!;
        break;
      }
    }
    let chars = 0;
    for (const m of log.slice(from)) if (m.role !== "command") chars += (m.content ?? "").length;
    this.#ctxSize = `ctx ~${compactNumber(Math.round(chars / 4))} tokens`;
  }

  #live(): LiveView {
    const { columns } = this.terminal.size();
    const { style } = this;
    const lines: string[] = [];
    const task = this.#task;
    if (task?.view) lines.push(...task.view.lines(columns, this.#frame));
    else if (task) {
      const spin = style.glyphs.spinner[this.#frame % style.glyphs.spinner.length];
      lines.push(style.dim(`${spin} ${task.label}`));
    }
    for (const queued of this.#queue) {
      lines.push(style.dim(clip(`queued: ${queued.split("\n")[0]}`, columns)));
    }
    let cursor: LiveView["cursor"] = null;
    const prompt = this.#prompts.at(-1);
    if (prompt) {
      lines.push(...prompt.lines.map((l) => clip(l, columns)));
      if (prompt.editor) {
        const view = prompt.editor.view("  ");
        cursor = { line: lines.length + view.cursor.line, col: view.cursor.col };
        lines.push(...view.lines);
      }
    } else {
      const view = this.editor.view(`${style.glyphs.prompt} `);
      cursor = { line: lines.length + view.cursor.line, col: view.cursor.col };
      lines.push(...view.lines);
    }
    const hint = prompt?.editor?.hint || (prompt ? "" : this.editor.hint) || this.#notice;
    if (hint) lines.push(style.dim(clip(hint, columns)));
    if (this.display.show_context_size) lines.push(style.dim(clip(this.#status(), columns)));
    return { lines, cursor };
  }

  #status(): string {
    const model = this.connection
      ? `${this.connection.provider}/${this.connection.model}`
      : this.engineError === "loading..."
      ? "loading..."
      : "no model backend (/connect)";
    const session = this.session && !this.#fresh ? ` · ${this.session.name}` : "";
    return `${model} · ${this.#ctxSize || "ctx 0 tokens"}${session}`;
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#escTimer);
    clearInterval(this.#spinner);
    this.#unresize();
    this.screen.close();
    this.terminal.stop();
    this.runtime?.plugins.close();
    this.#resolveDone(this.#code);
  }
}

function compactNumber(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}
