/**
 * What a task runs for a line the user sent: a prompt becomes a turn of the engine (the first user
 * message of a new session names its file first), a slash command runs in its context after it is
 * logged in the session as a `command` message (never sent to the provider).
 */
import type { ConnectedModel, Engine, EngineEvent, Runtime, SessionLog } from "../runtime/mod.ts";
import type { Command, CommandContext, Display } from "./slash_command.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import { TurnView } from "./turn_view.ts";

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
  /** The running task. */
  readonly task: Task | null;
  /** The session is new: its first user message names it. */
  fresh: boolean;
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

/** Runs `text` as a turn of the current engine on the current session. */
export async function runTurn(
  host: TaskHost,
  run: { text: string; signal: AbortSignal },
): Promise<void> {
  const { text, signal } = run;
  const session = host.session!;
  if (!host.engine) return host.error(host.engineError);
  if (host.fresh && !session.data.messages.some((m) => m.role === "user")) {
    const { interactiveName } = await import("../runtime/sessions.ts");
    await session.rename(interactiveName(new Date(), text));
    host.fresh = false;
  }
  const view = new TurnView((t) => host.screen.commit(t), host.style, host.display);
  host.task!.view = view;
  const result = await host.engine.runTurn(text, {
    session,
    signal,
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
  if (command.name !== "exit" && logged && host.session) {
    await host.session.appendMessage({
      role: "command",
      content: call.text,
      timestamp: new Date().toISOString(),
    }).catch((err) => host.warn(`could not log the command: ${(err as Error).message}`));
  }
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
