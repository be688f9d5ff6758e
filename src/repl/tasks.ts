/**
 * What a task runs for a line the user sent: a prompt becomes a turn of the engine (the first user
 * message of a new session names its file first; its `@path` mentions and a `!command`'s output go
 * with it as attachments, its images, pasted or mentioned, as images, unless the model takes none:
 * then nothing is sent and the prompt goes back into the input; the files it changed are summed
 * up after it), a slash command runs
 * in its context after it is logged in the session as a `command` message (never sent to the
 * provider), and `!command` runs in the shell (shell_escape.ts).
 */
import type {
  ConnectedModel,
  Engine,
  EngineEvent,
  EngineOverrides,
  Runtime,
  SessionLog,
} from "../runtime/mod.ts";
import type { ToolImage } from "../tool/types.ts";
import type { Command, CommandContext, Display } from "./slash_command.ts";
import type { Editor } from "./editor.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import { TurnView } from "./turn_view.ts";
import { withAttachments } from "../runtime/attachments.ts";

/** A turn or a command running, with its turn's view while it renders one. */
export interface Task {
  label: string;
  controller: AbortController;
  view: TurnView | null;
}

/** What a task needs of the REPL. */
export interface TaskHost {
  readonly runtime: Runtime | null;
  readonly engine: Engine | null;
  readonly engineError: string;
  readonly connection: ConnectedModel | null;
  readonly session: SessionLog | null;
  readonly style: Style;
  readonly display: Display;
  readonly commands: readonly Command[];
  readonly screen: Screen;
  /** The input line: a prompt that could not be sent goes back into it. */
  readonly editor: Editor;
  /** The running task. */
  readonly task: Task | null;
  /** The session is new: its first user message names it. */
  fresh: boolean;
  /** Attachments for the next prompt (the output of `!command`s). */
  readonly pending: string[];
  /** An engine with `overrides` (a custom command's model, agent type or tools). */
  engineFor(overrides: EngineOverrides): Promise<Engine>;
  /** The engine tools run on: the model's, or a tools-only one without a backend. */
  toolEngine(): Promise<Engine>;
  print(text: string): void;
  error(text: string): void;
  warn(text: string): void;
  ask(question: string, options: { mask?: boolean; signal?: AbortSignal }): Promise<string | null>;
  confirm(question: string): Promise<boolean>;
  pick(
    title: string,
    options: { items: readonly string[]; signal?: AbortSignal },
  ): Promise<number | null>;
  useSession(session: SessionLog, fresh: boolean): Promise<void>;
  useModel(choice: { provider?: string; model?: string }): Promise<void>;
  reload(): Promise<void>;
  /** Ends the REPL once the running task ends (`/exit`). */
  exitAfterTask(): void;
  /** Updates the status line's context size (`tokens` after a turn, else estimated). */
  updateContext(tokens?: number, window?: number): void;
}

/**
 * Runs `text` (with the pasted `images`) as a turn of the current engine (or one with
 * `overrides`) on the current session.
 */
export async function runTurn(
  host: TaskHost,
  run: {
    text: string;
    signal: AbortSignal;
    overrides?: EngineOverrides | null;
    images?: readonly ToolImage[];
    /** Typed as it is (not a custom command's prompt): if refused, it goes back into the input. */
    typed?: boolean;
  },
): Promise<void> {
  const { text, signal } = run;
  const session = host.session!;
  const engine = run.overrides
    ? await host.engineFor(run.overrides).catch((err) => void host.error((err as Error).message))
    : host.engine;
  if (!engine) return run.overrides ? undefined : host.error(host.engineError);
  const worktree = host.runtime!.worktree;
  const mentioned = text.includes("@")
    ? await (await import("./mentions.ts")).attachMentions(text, {
      engine,
      session,
      worktree,
      signal,
    })
    : { blocks: [], images: [], notes: [] };
  for (const note of mentioned.notes) {
    host.print(note.ok ? host.style.dim(note.text) : host.style.yellow(note.text));
  }
  const images = [...run.images ?? [], ...mentioned.images];
  // A refused prompt leaves the session as it was: a new one stays unnamed.
  if (images.length && await refused(host, { engine, images, text, typed: run.typed })) return;
  if (host.fresh && !session.data.messages.some((m) => m.role === "user")) {
    const { interactiveName } = await import("../runtime/sessions.ts");
    await session.rename(interactiveName(new Date(), text));
    host.fresh = false;
  }
  const prompt = withAttachments(text, [...mentioned.blocks, ...host.pending.splice(0)]);
  const since = new Date().toISOString();
  const view = new TurnView((t) => host.screen.commit(t), host.style, host.display);
  host.task!.view = view;
  const result = await engine.runTurn(prompt, {
    session,
    signal,
    ...(images.length ? { images } : {}),
    onEvent: (event) => {
      view.event(event);
      host.screen.schedule();
    },
  });
  view.finish(result);
  const usage = result.usage;
  host.updateContext(
    usage?.prompt_tokens !== undefined
      ? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0)
      : undefined,
    result.context.window ?? undefined,
  );
  if (!session.path) return;
  const { changesSummary, turnChanges } = await import("../runtime/turn_changes.ts");
  const changes = await turnChanges(worktree, { session, since }).catch(() => null);
  if (changes?.files.length) host.print(host.style.dim(changesSummary(changes)));
}

/**
 * Whether the model refuses the prompt's images: then the reason is shown, nothing is sent, and
 * the prompt goes back into the input (unless something new was typed there; the history has it).
 */
async function refused(
  host: TaskHost,
  prompt: { engine: Engine; images: readonly ToolImage[]; text: string; typed?: boolean },
): Promise<boolean> {
  const { imagesRefusal } = await import("./prompt_images.ts");
  const why = await imagesRefusal(prompt.engine, prompt.images);
  if (why === null) return false;
  const back = prompt.typed === true && !host.editor.text && prompt.text.trim() !== "";
  if (back) host.editor.setText(prompt.text);
  host.error(`not sent: ${why}`);
  host.print(
    host.style.dim(back ? "your message is back in the input" : "Up recalls your message"),
  );
  return true;
}

/**
 * Runs `!command` in the worktree's shell: the output is printed and kept for the next prompt;
 * the line is logged as a `command` record.
 */
export async function runShellEscape(
  host: TaskHost,
  run: { command: string; text: string; signal: AbortSignal },
): Promise<void> {
  const runtime = host.runtime;
  if (!runtime) return host.error("svc is still loading; try again in a moment");
  await logCommand(host, run.text);
  const { runShell, shellBlock, shellScreen } = await import("./shell_escape.ts");
  const result = await runShell(run.command, {
    cwd: runtime.worktree,
    signal: run.signal,
    maxChars: runtime.config.tool_max_result_chars,
  });
  const lines = shellScreen(result);
  const end = lines.pop()!;
  if (lines.length) host.print(lines.join("\n"));
  host.print(host.style.dim(end));
  if (!result.cancelled) host.pending.push(shellBlock(run.command, result));
}

async function logCommand(host: TaskHost, text: string): Promise<void> {
  await host.session?.appendMessage({
    role: "command",
    content: text,
    timestamp: new Date().toISOString(),
  }).catch((err) => host.warn(`could not log the command: ${(err as Error).message}`));
}

/** Runs the slash command `name` with `args`; `text` is the line as typed, logged first. */
export async function runCommand(
  host: TaskHost,
  call: { name: string; args: string; text: string; signal: AbortSignal },
): Promise<void> {
  const { findCommand } = await import("./slash_command.ts");
  const command = findCommand(host.commands, call.name);
  if (!command) {
    return host.error(`unknown command /${call.name}; /help lists the commands`);
  }
  const logged = command.log === undefined || (command.log === "unless_fresh" && !host.fresh);
  if (command.name !== "exit" && logged) await logCommand(host, call.text);
  await command.run(commandContext(host, call.signal), call.args);
  host.updateContext();
}

function commandContext(host: TaskHost, signal: AbortSignal): CommandContext {
  return {
    get runtime() {
      return host.runtime!;
    },
    get engine() {
      return host.engine;
    },
    toolEngine: () => host.toolEngine(),
    prompt: (text, overrides) => runTurn(host, { text, signal, overrides }),
    get engineError() {
      return host.engineError;
    },
    get connection() {
      return host.connection;
    },
    get session() {
      return host.session!;
    },
    get style() {
      return host.style;
    },
    display: host.display,
    commands: host.commands,
    signal,
    print: (text) => host.print(text),
    error: (text) => host.error(text),
    ask: (question, options) => host.ask(question, { mask: options?.mask, signal }),
    confirm: (question) => host.confirm(question),
    pick: (title, items) => host.pick(title, { items, signal }),
    events: () => {
      const view = new TurnView((t) => host.screen.commit(t), host.style, host.display);
      if (host.task) host.task.view = view;
      return {
        onEvent: (event: EngineEvent) => {
          view.event(event);
          host.screen.schedule();
        },
        finish: () => {
          view.finish();
          if (host.task?.view === view) host.task.view = null;
        },
      };
    },
    useSession: (session, { fresh }) => host.useSession(session, fresh),
    useModel: (choice) => host.useModel(choice),
    reload: () => host.reload(),
    exit: () => host.exitAfterTask(),
  };
}
