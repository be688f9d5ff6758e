/**
 * The REPL's engines: the one of the configured (or picked) model, rebuilt on `/model`, `/connect`
 * and reloads, and a tools-only engine for `/tool` while no model backend is configured (running
 * a tool needs none). Both ask permissions and the `ask` tool's questions in the REPL.
 */
import type {
  ConnectedModel,
  Engine,
  EngineOverrides,
  Runtime,
  RuntimeInit,
  SessionLog,
} from "../runtime/mod.ts";
import { notifyPerson, permissionNotice, type PersonNotice } from "../runtime/session_hooks.ts";
import type { Questions } from "./questions.ts";
import type { Display } from "./slash_command.ts";

/** What building engines needs of the REPL. */
export interface EngineHost {
  runtime: Runtime | null;
  engine: Engine | null;
  connection: ConnectedModel | null;
  engineError: string;
  readonly session: SessionLog | null;
  readonly questions: Questions;
  readonly options: { init: RuntimeInit };
  print(text: string): void;
  error(text: string): void;
  warn(text: string): void;
  applyDisplay(config: Display): void;
  updateContext(): void;
}

/** Runs the Notification hooks of a prompt that is about to open (docs/hooks.md). */
function notify(
  repl: EngineHost,
  notice: { session: string; message: string; type: PersonNotice["type"] },
) {
  if (!repl.runtime) return;
  notifyPerson(repl.runtime, { ...notice, warn: (text) => repl.warn(text) });
}

/** What every REPL engine is built with: not headless, prompts and questions in the REPL. */
function interactive(repl: EngineHost) {
  return {
    headless: false,
    approver: (request: Parameters<Questions["approve"]>[0], signal: AbortSignal) => {
      notify(repl, {
        session: request.session,
        message: permissionNotice(request),
        type: "permission_prompt",
      });
      return repl.questions.approve(request, signal);
    },
    askHuman: (request: Parameters<Questions["askHuman"]>[0], signal: AbortSignal) => {
      const message = `svc has a question for you: ${request.question}`;
      notify(repl, { session: repl.session?.name ?? "", message, type: "elicitation_dialog" });
      return repl.questions.askHuman(request, signal);
    },
  };
}

/** Builds the engine for the config's model, or `choice`; a failure keeps the old engine. */
export async function useModel(
  repl: EngineHost,
  choice: { provider?: string; model?: string } = {},
): Promise<void> {
  const runtime = repl.runtime!;
  const other = Boolean(choice.provider || choice.model);
  const picked = other
    ? { provider: choice.provider, model: choice.model, modelFrom: "user" as const }
    : {};
  try {
    const connection = await runtime.connect(other ? { ...picked, approveModel: undefined } : {});
    repl.engine = await runtime.engine({ ...interactive(repl), ...picked });
    repl.connection = connection;
    repl.engineError = "";
    for (const warning of connection.warnings) repl.warn(warning);
    if (other) repl.print(`now using ${connection.provider}/${connection.model}`);
  } catch (err) {
    const message = (err as Error).message;
    if (other) repl.error(message);
    else {
      repl.engine = null;
      repl.connection = null;
      repl.engineError = `${message} (/connect sets up a backend)`;
      repl.warn(repl.engineError);
    }
  }
  repl.updateContext();
}

/** The engine tools run on: the model's, or without a backend one that runs tools only. */
export function toolEngine(repl: EngineHost): Promise<Engine> {
  if (repl.engine) return Promise.resolve(repl.engine);
  const runtime = repl.runtime!;
  // One per runtime, so its session's `always` answers last until a reload.
  let engine = toolsOnly.get(runtime);
  if (!engine) {
    engine = runtime.toolEngine(interactive(repl), repl.engineError);
    toolsOnly.set(runtime, engine);
  }
  return engine;
}

const toolsOnly = new WeakMap<Runtime, Promise<Engine>>();

/** An engine with `overrides` (a custom command's model, type or tools), asking in the REPL. */
export function engineFor(repl: EngineHost, overrides: EngineOverrides): Promise<Engine> {
  return repl.runtime!.engine({ ...interactive(repl), ...overrides });
}

/** Reloads config, plugins, catalog and the engine (the session stays). */
export async function reload(repl: EngineHost): Promise<void> {
  const { Runtime } = await import("../runtime/runtime.ts");
  const old = repl.runtime;
  const runtime = await Runtime.load(repl.options.init);
  old?.plugins.close();
  repl.runtime = runtime;
  repl.applyDisplay(runtime.config);
  for (const warning of runtime.warnings) repl.warn(warning);
  await useModel(repl);
}
