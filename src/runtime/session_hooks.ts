/**
 * The SessionStart and SessionEnd hooks (docs/hooks.md) of the front-ends that open sessions:
 * SessionStart's context (plain stdout or `additionalContext`) goes into the session as a system
 * message the model reads; SessionEnd only informs. Notices go to `warn`.
 */
import type { SessionLog } from "../session/log.ts";
import { hookToolName } from "../tool/hook_names.ts";
import type { HookRunner, HookSession } from "../tool/hooks.ts";
import { join } from "../util/posix_path.ts";
import type { Runtime } from "./runtime.ts";

/** Where the session hooks come from: a runtime, or an engine's deps (the one `svc serve` runs). */
export interface SessionHookSource {
  hooks?: HookRunner;
  config: { mode?: string };
}

/** Runs SessionStart (`source`: startup, resume or clear) and records its context in the session. */
export async function sessionStart(
  runtime: SessionHookSource,
  session: SessionLog,
  options: {
    source: "startup" | "resume" | "clear";
    warn(message: string): void;
    signal?: AbortSignal;
  },
): Promise<void> {
  const hooks = runtime.hooks;
  if (!hooks?.has("SessionStart")) return;
  const outcome = await hooks.run("SessionStart", {
    permission_mode: runtime.config.mode === "plan" ? "plan" : "default",
    source: options.source,
  }, { session: hookSession(session), signal: options.signal, match: [options.source] });
  for (const notice of outcome.notices) options.warn(notice);
  if (!outcome.context.length) return;
  await session.appendMessage({
    role: "system",
    content: `[hook context]\n${outcome.context.join("\n")}`,
    timestamp: new Date().toISOString(),
  });
}

/** Runs SessionEnd (`reason` as the convention names it: other, clear, prompt_input_exit). */
export async function sessionEnd(
  runtime: SessionHookSource,
  session: Pick<SessionLog, "name" | "path">,
  options: { reason: string; warn(message: string): void },
): Promise<void> {
  const hooks = runtime.hooks;
  if (!hooks?.has("SessionEnd")) return;
  const outcome = await hooks.run("SessionEnd", { reason: options.reason }, {
    session: hookSession(session),
    match: [options.reason],
  });
  for (const notice of outcome.notices) options.warn(notice);
}

/**
 * One headless use of a session (a run, a `/chat` request, a job's run): SessionStart
 * (`startup`, or `resume` for a session that existed), then `run`, then SessionEnd (`other`).
 */
export async function withSessionHooks<T>(
  source: SessionHookSource,
  session: SessionLog,
  options: {
    resumed: boolean;
    warn(message: string): void;
    signal?: AbortSignal;
    run(): Promise<T>;
  },
): Promise<T> {
  const { warn, signal } = options;
  await sessionStart(source, session, {
    source: options.resumed ? "resume" : "startup",
    warn,
    signal,
  });
  try {
    return await options.run();
  } finally {
    await sessionEnd(source, session, { reason: "other", warn });
  }
}

/** What svc tells the person through Notification hooks; the type is the matcher. */
export interface PersonNotice {
  /** The session name (`session_id`; its file is `transcript_path`). */
  session: string;
  message: string;
  /** `permission_prompt` (an approval prompt) or `elicitation_dialog` (a question). */
  type: "permission_prompt" | "elicitation_dialog";
  warn(message: string): void;
}

/**
 * Runs the Notification hooks (`message`, `notification_type`) without waiting for them: the
 * prompt they announce opens at once. They only inform; their notices go to `warn`.
 */
export function notifyPerson(
  runtime: Pick<Runtime, "hooks" | "sessions">,
  notice: PersonNotice,
): void {
  const hooks = runtime.hooks;
  if (!hooks?.has("Notification")) return;
  const path = join(runtime.sessions.dir, `${notice.session}.json`);
  hooks.run("Notification", { message: notice.message, notification_type: notice.type }, {
    session: { id: notice.session, path },
    match: [notice.type],
  }).then(
    (outcome) => outcome.notices.forEach(notice.warn),
    (err) => notice.warn(`Notification hooks failed: ${(err as Error).message}`),
  );
}

/** The Notification of an approval prompt: "svc needs your permission to use Bash". */
export function permissionNotice(request: { tool: string; category: string }): string {
  return `svc needs your permission to use ${
    hookToolName({ name: request.tool, category: request.category })
  }`;
}

function hookSession(session: Pick<SessionLog, "name" | "path">): HookSession {
  return session.path ? { id: session.name, path: session.path } : { id: session.name };
}
