/**
 * The REPL: keys in, turns and slash commands out, one task at a time. The input line stays live
 * while a task runs: Enter then queues the prompt (shown as queued), Esc or Ctrl-C cancels the
 * task (a cancelled turn keeps and saves its partial answer). Ctrl-C on idle input clears it, a
 * second one on an empty line exits; Ctrl-D on an empty line exits. Engines come only from the
 * runtime. What a task runs is in tasks.ts, the open questions in questions.ts, what the live
 * region shows in live_region.ts, Tab in tab_completion.ts.
 */
import type {
  ConnectedModel,
  Engine,
  EngineOverrides,
  Runtime,
  RuntimeInit,
  SessionLog,
} from "../runtime/mod.ts";
import type { ToolImage } from "../tool/types.ts";
import { visibleControls, visibleControlsKeepingStyle } from "../util/terminal_text.ts";
import { VERSION } from "../version.ts";
import type { Command, Display } from "./slash_command.ts";
import { parseCommand } from "./slash_command.ts";
import { Editor } from "./editor.ts";
import type { History } from "./history.ts";
import { KeyDecoder, type KeyEvent } from "./keys.ts";
import { pastedPaths } from "./paste_path.ts";
import { contextLabel, type ContextMeasure, liveView, statusLine } from "./live_region.ts";
import { Questions } from "./questions.ts";
import { type LiveView, Screen } from "./screen.ts";
import { makeStyle, type Style } from "./style.ts";
import { runCommand, runShellEscape, runTurn, type Task, type TaskHost } from "./tasks.ts";
import { engineFor, reload, toolEngine, useModel } from "./repl_engine.ts";
import type { Terminal } from "./terminal.ts";
import { loadWidths } from "./width.ts";
import { exitHooks, switchHooks } from "./session_switch.ts";

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

export class Repl implements TaskHost {
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
  fresh = true;
  commands: readonly Command[] = [];
  /** The open questions; the top one takes the keys. */
  readonly questions: Questions;
  #task: Task | null = null;
  #queue: { text: string; images: ToolImage[] }[] = [];
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
  #ctxWindow: number | undefined;
  #measured: { session: SessionLog; measure: ContextMeasure } | null = null;
  /** Attachments for the next prompt (the output of `!command`s). */
  readonly pending: string[] = [];
  /** Ctrl-X was pressed: Ctrl-E next opens the external editor. */
  #ctrlX = false;
  /** While the external editor runs: no key is read (they are the editor's). */
  #paused: Promise<void> | null = null;
  #unresize: () => void = () => {};

  constructor(readonly options: ReplOptions) {
    this.terminal = options.terminal;
    this.style = makeStyle(options.color, true);
    this.editor = new Editor(options.history.entries);
    this.screen = new Screen(this.terminal, () => this.#live(), { tty: true });
    this.questions = new Questions(this.screen, {
      style: () => this.style,
      closing: () => this.#exiting,
    });
    this.#done = new Promise((resolve) => this.#resolveDone = resolve);
  }

  /** Shows the prompt, loads the runtime, then reads keys until the REPL exits. */
  run(load: () => Promise<void>): Promise<number> {
    this.terminal.start();
    this.#unresize = this.terminal.onResize(() => this.screen.paint());
    this.screen.paint();
    void this.#readKeys();
    this.#start("loading", async () => {
      await loadWidths().then(() => this.screen.paint());
      await load();
    });
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
  useModel(choice: { provider?: string; model?: string } = {}): Promise<void> {
    return useModel(this, choice);
  }

  engineFor(overrides: EngineOverrides): Promise<Engine> {
    return engineFor(this, overrides);
  }

  toolEngine(): Promise<Engine> {
    return toolEngine(this);
  }

  /**
   * Switches sessions: the SessionEnd hooks of the one left (`clear` for a new one, else
   * `other`), then the SessionStart hooks of this one (`source`: startup, resume or clear).
   */
  async useSession(
    session: SessionLog,
    fresh: boolean,
    source: "startup" | "resume" | "clear" = fresh ? "clear" : "resume",
  ): Promise<void> {
    const previous = this.session;
    this.session = session;
    this.fresh = fresh;
    this.updateContext();
    if (!this.runtime) return;
    await switchHooks(this.runtime, { previous, session, source, warn: (t) => this.warn(t) });
  }

  /** The running task. */
  get task(): Task | null {
    return this.#task;
  }

  /** Commits a command's output; control characters but svc's styling (SGR) show as `\xHH`. */
  print(text: string): void {
    this.screen.commit(visibleControlsKeepingStyle(text));
  }

  error(text: string): void {
    this.screen.commit(this.style.red(visibleControls(text)));
  }

  warn(text: string): void {
    this.screen.commit(this.style.yellow(`warning: ${visibleControls(text)}`));
  }

  /** Asks the gate question of an unapproved model. */
  confirmModel(provider: string, model: string): Promise<boolean> {
    return this.confirm(
      `Approve model ${provider}/${model}? It is not in ~/.config/svc/models.json yet`,
    );
  }

  confirm(question: string): Promise<boolean> {
    return this.questions.confirm(question);
  }

  ask(
    question: string,
    options: { mask?: boolean; signal?: AbortSignal } = {},
  ): Promise<string | null> {
    return this.questions.ask(question, options);
  }

  pick(
    title: string,
    options: { items: readonly string[]; signal?: AbortSignal },
  ): Promise<number | null> {
    return this.questions.pick(title, options);
  }

  /** Ends the REPL: a running task is cancelled first (its partial output is saved). */
  exit(code = 0): void {
    this.#code = code;
    this.#exiting = true;
    this.questions.abandonAll();
    if (this.#task) this.#task.controller.abort();
    else this.#finish();
  }

  /** Ends the REPL once the running task ends (`/exit`). */
  exitAfterTask(): void {
    this.#exiting = true;
  }

  // ---- keys ---------------------------------------------------------------------------------

  async #readKeys(): Promise<void> {
    for await (const chunk of this.terminal.input()) {
      if (this.#finished) return;
      this.#keys(this.#decoder.feed(chunk));
      while (this.#paused) await this.#paused;
      if (this.#decoder.waiting) {
        clearTimeout(this.#escTimer);
        this.#escTimer = setTimeout(() => this.#keys(this.#decoder.flush()), ESC_WAIT_MS);
      }
    }
    // Input ended (terminal closed): leave like Ctrl-D.
    if (!this.#finished) this.exit();
  }

  #keys(keys: KeyEvent[]): void {
    for (const [i, key] of keys.entries()) {
      if (this.#finished) return;
      // Keys after a pasted image path or the external editor wait for it, in order.
      if (this.#paused) return void this.#paused.then(() => this.#keys(keys.slice(i)));
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
    const prompt = this.questions.top;
    if (prompt) {
      const result = prompt.key(key);
      if (result.done) this.questions.pop();
      if (result.interrupt) this.#cancel();
      return;
    }
    if (this.#task && (interrupt || key.name === "escape") && !this.editor.searching) {
      this.#cancel();
      return;
    }
    if (this.#ctrlX && key.ctrl && key.name === "e") return this.#externalEditor();
    this.#ctrlX = key.ctrl === true && key.name === "x" && !this.editor.searching;
    if (key.ctrl && key.name === "l" && !this.editor.searching) return this.screen.redraw();
    if (key.name === "paste" && !this.editor.searching && pastedPaths(key.text ?? "")) {
      return this.#pause(import("./pasted_image.ts").then((m) => m.pasteImages(this, key)));
    }
    const action = this.editor.handle(key);
    switch (action.type) {
      case "submit":
        return this.#submit(action.text, action.images);
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

  /** Ctrl-X Ctrl-E: the input in $VISUAL or $EDITOR; the keys wait until it exits. */
  #externalEditor(): void {
    this.#ctrlX = false;
    this.#pause(
      (async () => {
        const { editExternally } = await import("./external_editor.ts");
        const edited = await editExternally(this.editor.expanded(), {
          terminal: this.terminal,
          screen: this.screen,
        });
        if ("text" in edited) this.editor.setText(edited.text);
        else this.error(edited.error);
      })().catch((err) => this.error(`editor: ${(err as Error).message}`)),
    );
  }

  /** No key is handled until `work` ends. */
  #pause(work: Promise<void>): void {
    this.#paused = work.catch((err) => this.error((err as Error).message)).finally(() => {
      this.#paused = null;
      this.screen.paint();
    });
  }

  #cancel(): void {
    if (!this.#task || this.#task.controller.signal.aborted) return;
    this.#task.controller.abort();
    this.#notice = "cancelling...";
  }

  async #complete(): Promise<void> {
    const { completeInput } = await import("./tab_completion.ts");
    if (await completeInput(this.editor, this)) this.screen.paint();
  }

  // ---- tasks --------------------------------------------------------------------------------

  /** Runs `text` as if typed, once the running task ends; not added to the history. */
  enqueue(text: string): void {
    this.#queue.push({ text, images: [] });
  }

  #submit(text: string, images: ToolImage[] = []): void {
    if (!text.trim()) return;
    void this.options.history.add(text);
    if (this.#task) {
      this.#queue.push({ text, images });
      return;
    }
    this.#startInput(text, images);
  }

  #startInput(text: string, images: ToolImage[]): void {
    this.screen.commit(`${this.style.cyan(this.style.glyphs.prompt)} ${text}`);
    const command = parseCommand(text);
    const shell = /^!\s*(\S[\s\S]*)$/.exec(text.trim());
    if (images.length && (shell || command)) {
      this.#notice = "images go only with a message: not sent";
    }
    if (shell) {
      this.#start(
        `!${shell[1].split("\n")[0]}`,
        (signal) => runShellEscape(this, { command: shell[1], text: text.trim(), signal }),
      );
    } else if (command) {
      this.#start(
        `/${command.name}`,
        (signal) => runCommand(this, { name: command.name, args: command.args, text, signal }),
      );
    } else this.#start("turn", (signal) => runTurn(this, { text, images, signal, typed: true }));
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
        this.questions.abandonAll();
        if (this.#exiting) return this.#finish();
        const next = this.#queue.shift();
        if (next !== undefined) this.#startInput(next.text, next.images);
        this.screen.paint();
      });
  }

  /** Reloads config, plugins, catalog and the engine (the session stays). */
  reload(): Promise<void> {
    return reload(this);
  }

  // ---- screen -------------------------------------------------------------------------------

  /**
   * Updates the status line's context size: `tokens` after a turn, else estimated; `window`, the
   * model's context window a turn reported, is remembered for the label.
   */
  updateContext(tokens?: number, window?: number): void {
    if (window) this.#ctxWindow = window;
    const session = this.session;
    if (!session) return;
    const messages = session.data.messages;
    if (tokens !== undefined) {
      this.#measured = { session, measure: { tokens, at: messages.length } };
    }
    const measured = this.#measured?.session === session ? this.#measured.measure : undefined;
    this.#ctxSize = contextLabel(messages, { measured, window: this.#ctxWindow });
  }

  #live(): LiveView {
    const status = this.display.show_context_size
      ? statusLine({
        model: this.connection,
        engineError: this.engineError,
        context: this.#ctxSize,
        session: this.session && !this.fresh ? this.session.name : null,
      })
      : null;
    return liveView({
      columns: this.terminal.size().columns,
      frame: this.#frame,
      style: this.style,
      task: this.#task,
      queue: this.#queue.map((queued) => queued.text),
      prompt: this.questions.top,
      editor: this.editor,
      notice: this.#notice,
      status,
    });
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#escTimer);
    clearInterval(this.#spinner);
    this.#unresize();
    this.screen.close();
    this.terminal.stop();
    void exitHooks(this.runtime, this.session).finally(() => {
      this.runtime?.plugins.close();
      this.#resolveDone(this.#code);
    });
  }
}
