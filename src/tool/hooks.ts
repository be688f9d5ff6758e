/**
 * Hooks in Claude Code's format (docs/hooks.md): the config's `hooks` (the user's own config and a
 * trusted worktree's only) and the hooks plugins register, run at the events where they happen.
 * A command hook gets the event as JSON on stdin and answers with its exit code and output; a
 * plugin hook is data plus a callback that takes the same JSON and returns the same output.
 */
import {
  type ElicitationReply,
  type HookDecision,
  type HookReply,
  readReply,
  replyOf,
} from "./hook_reply.ts";
import { runProcess } from "./process.ts";
import { scrubEnv, which } from "./shell.ts";

export type { ElicitationReply, HookDecision, HookReply };

/** The events, by the convention's names. */
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "Notification",
  "SessionEnd",
  "Elicitation",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One command of the config's `hooks`. */
export interface CommandHook {
  type: "command";
  command: string;
  /** Seconds; default 60. */
  timeout?: number;
  /** svc extension: a crash, timeout or unreadable output denies instead of being reported. */
  fail_closed?: boolean;
}

/** The commands of one matcher. */
export interface HookGroup {
  matcher?: string;
  hooks: CommandHook[];
}

/** The config's `hooks`: event name -> matcher groups. Unknown events are kept and never run. */
export type HooksConfig = Partial<Record<string, HookGroup[]>>;

/** A hook a plugin registers (`register_hooks`): plain data and a JSON-in, JSON-out callback. */
export interface PluginHookDef {
  event: HookEvent;
  matcher?: string;
  /** Seconds; default 60. */
  timeout?: number;
  fail_closed?: boolean;
  /** Gets the event's input object; returns the output object (or text, or nothing). */
  run(input: Record<string, unknown>): Promise<unknown> | unknown;
}

/** Default and largest timeout of one hook, in seconds. */
export const HOOK_TIMEOUT_S = 60;
const MAX_HOOK_TIMEOUT_S = 600;

/** The session a hook hears about. */
export interface HookSession {
  id: string;
  /** The session file (`transcript_path`); absent for in-memory sessions. */
  path?: string;
}

/** One run of an event's hooks. */
export interface HookCall {
  session: HookSession;
  signal?: AbortSignal;
  /** What matchers are tested against (tool names, a SessionStart source, ...). */
  match?: readonly string[];
}

/** What all the hooks of one event said, folded: a deny beats an ask beats an allow. */
export interface HookOutcome {
  /** How many hooks ran. */
  ran: number;
  decision?: HookDecision;
  reason?: string;
  /** The decision came from the config's hooks only (an allow may then answer an ask). */
  fromConfig: boolean;
  updatedInput?: Record<string, unknown>;
  /** An Elicitation hook's answer: the strictest (cancel, then decline, then accept) wins. */
  elicitation?: ElicitationReply;
  /** Blocking reasons (exit 2, `decision: "block"`), for the model. */
  blocks: string[];
  context: string[];
  stop?: string;
  /** System messages and reported errors, for the user. */
  notices: string[];
}

interface Handler {
  label: string;
  fromConfig: boolean;
  matcher?: string;
  timeoutS: number;
  failClosed: boolean;
  run(event: HookEvent, input: Record<string, unknown>, signal?: AbortSignal): Promise<HookReply>;
}

/** Runs the hooks of a worktree; built once per runtime. */
export class HookRunner {
  readonly #handlers = new Map<HookEvent, Handler[]>();

  constructor(
    readonly worktree: string,
    sources: { config?: HooksConfig; plugins?: readonly { plugin: string; hook: PluginHookDef }[] },
  ) {
    for (const [event, groups] of Object.entries(sources.config ?? {})) {
      if (!(HOOK_EVENTS as readonly string[]).includes(event) || !Array.isArray(groups)) continue;
      for (const group of groups) {
        for (const hook of group.hooks ?? []) {
          if (hook.type !== "command") continue;
          this.#add(event as HookEvent, this.#commandHandler(hook, group.matcher));
        }
      }
    }
    for (const { plugin, hook } of sources.plugins ?? []) {
      this.#add(hook.event, pluginHandler(plugin, hook));
    }
  }

  /** Whether any hook is registered for `event`. */
  has(event: HookEvent): boolean {
    return (this.#handlers.get(event)?.length ?? 0) > 0;
  }

  /** Runs the matching hooks of `event` one after another and folds what they said. */
  async run(
    event: HookEvent,
    fields: Record<string, unknown>,
    call: HookCall,
  ): Promise<HookOutcome> {
    const outcome: HookOutcome = { ran: 0, fromConfig: true, blocks: [], context: [], notices: [] };
    const handlers = (this.#handlers.get(event) ?? []).filter((h) =>
      matches(h.matcher, call.match)
    );
    if (!handlers.length) return outcome;
    const input = {
      session_id: call.session.id,
      transcript_path: call.session.path ?? "",
      cwd: this.worktree,
      hook_event_name: event,
      ...fields,
    };
    for (const handler of handlers) {
      if (call.signal?.aborted) break;
      const reply = await handler.run(event, input, call.signal);
      outcome.ran++;
      fold(outcome, reply, handler, event);
    }
    return outcome;
  }

  #add(event: HookEvent, handler: Handler): void {
    const list = this.#handlers.get(event) ?? [];
    list.push(handler);
    this.#handlers.set(event, list);
  }

  #commandHandler(hook: CommandHook, matcher: string | undefined): Handler {
    const timeoutS = clampHookTimeout(hook.timeout);
    return {
      label: `hook \`${hook.command}\``,
      fromConfig: true,
      matcher,
      timeoutS,
      failClosed: hook.fail_closed === true,
      run: async (event, input, signal) => {
        const shell = which("bash") ?? "sh";
        const env = {
          ...scrubEnv(),
          CLAUDE_PROJECT_DIR: this.worktree,
          SVC_PROJECT_DIR: this.worktree,
        };
        const result = await runProcess(shell, ["-c", hook.command], {
          cwd: this.worktree,
          env,
          timeoutMs: timeoutS * 1000,
          signal,
          input: JSON.stringify(input),
        });
        return readReply(event, { ...result, timeoutS });
      },
    };
  }
}

/** A plugin hook's callback under its timeout; a throw or a timeout is an error reply. */
function pluginHandler(plugin: string, hook: PluginHookDef): Handler {
  const timeoutS = clampHookTimeout(hook.timeout);
  return {
    label: `plugin ${plugin}'s ${hook.event} hook`,
    fromConfig: false,
    matcher: hook.matcher,
    timeoutS,
    failClosed: hook.fail_closed === true,
    run: async (event, input) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<HookReply>((resolve) => {
        timer = setTimeout(
          () => resolve({ error: `timed out after ${timeoutS} s` }),
          timeoutS * 1000,
        );
      });
      const answer = (async (): Promise<HookReply> => {
        try {
          return replyOf(event, await hook.run(structuredClone(input)));
        } catch (err) {
          return { error: `failed: ${(err as Error).message}` };
        }
      })();
      try {
        return await Promise.race([answer, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The timeout in seconds: default 60, at most 600. */
export function clampHookTimeout(seconds: number | undefined): number {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return HOOK_TIMEOUT_S;
  return Math.min(seconds, MAX_HOOK_TIMEOUT_S);
}

/**
 * Whether a matcher matches one of `names`: none, "" and "*" match everything; otherwise the
 * matcher is a regular expression that must match a whole name (`Bash|Write`, `mcp__fs__.*`),
 * and one that is not a valid expression must equal a name.
 */
export function matches(
  matcher: string | undefined,
  names: readonly string[] | undefined,
): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (!names?.length) return true;
  let pattern: RegExp | undefined;
  try {
    pattern = new RegExp(`^(?:${matcher})$`);
  } catch {
    pattern = undefined;
  }
  return names.some((name) => pattern ? pattern.test(name) : name === matcher);
}

const RANK: Record<HookDecision, number> = { allow: 0, ask: 1, deny: 2 };
const ACTION_RANK: Record<ElicitationReply["action"], number> = {
  accept: 0,
  decline: 1,
  cancel: 2,
};

/** Adds one reply to the outcome: the strictest decision wins, a fail_closed error denies. */
function fold(outcome: HookOutcome, reply: HookReply, handler: Handler, event: HookEvent): void {
  let { decision, reason } = reply;
  if (reply.error) {
    const message = `${event} ${handler.label} ${reply.error}`;
    outcome.notices.push(message);
    if (handler.failClosed) {
      decision = "deny";
      reason = `${message} (fail_closed)`;
      outcome.blocks.push(reason);
    }
  }
  if (reply.block) {
    outcome.blocks.push(reply.block);
    decision = "deny";
    reason ??= reply.block;
  }
  if (decision && (!outcome.decision || RANK[decision] >= RANK[outcome.decision])) {
    if (decision !== outcome.decision) outcome.fromConfig = handler.fromConfig;
    else outcome.fromConfig &&= handler.fromConfig;
    outcome.decision = decision;
    outcome.reason = reason ?? outcome.reason;
  }
  if (reply.updatedInput && !reply.error) outcome.updatedInput = reply.updatedInput;
  // A plugin hook's accept never answers a question, as its allow never answers an ask.
  if (
    reply.elicitation && (handler.fromConfig || reply.elicitation.action !== "accept") &&
    (!outcome.elicitation ||
      ACTION_RANK[reply.elicitation.action] >= ACTION_RANK[outcome.elicitation.action])
  ) outcome.elicitation = reply.elicitation;
  if (reply.context) outcome.context.push(reply.context);
  if (reply.stop && !outcome.stop) outcome.stop = reply.stop;
  if (reply.systemMessage) outcome.notices.push(reply.systemMessage);
}
