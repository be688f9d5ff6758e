/**
 * The messages between svc and a sandboxed plugin's Worker. Everything crossing is plain data
 * (structured clone): registrations come back as data, a tool call goes in as JSON arguments and
 * comes back as a result; cancellation, status lines, questions and delegation are messages too.
 */
import type { Config } from "../config/schema.ts";
import type { AskRequest, ElicitationRequest, ToolOutput } from "../tool/types.ts";
import type { Registrations } from "./registrars.ts";

/**
 * Largest result of one plugin tool call, in characters (its content and status): the Worker
 * checks it before the result is copied out and sends an error instead.
 */
export const MAX_RESULT_CHARS = 4 * 1024 * 1024;
/**
 * Longest message line the plugin's process sends svc (a result at its cap, JSON-escaped, fits):
 * the process sends an error instead of a longer one, and svc stops a plugin whose line runs past
 * it rather than buffer it.
 */
export const MAX_LINE_CHARS = 2 * MAX_RESULT_CHARS + 64 * 1024;

/** A tool as data: everything but `run`; `inputSchema` is the JSON schema of the arguments. */
export interface ToolData {
  name: string;
  category: string;
  description: string;
  inputSchema: Record<string, unknown>;
  aliases?: string[];
  argAliases?: Record<string, string>;
  pathArgs?: string[];
}

/** A slash command as data: everything but `run`. */
export interface CommandData {
  name: string;
  description: string;
}

/**
 * A hook (`register_hooks`) as data: everything but `run`; `id` is its number in the Worker,
 * which a `hook` message names to run it.
 */
export interface HookData {
  id: number;
  event: string;
  matcher?: string;
  timeout?: number;
  fail_closed?: boolean;
}

/** Registrations as they cross: tools, commands and hooks as data, the rest as they were. */
export type RegistrationData =
  & Omit<Registrations, "tools" | "commands" | "hooks">
  & { tools: ToolData[]; commands: CommandData[]; hooks?: HookData[] };

/** The plain parts of a tool context; `config` only when the Worker has not seen `configId`. */
export interface CallContext {
  worktree: string;
  session: string;
  headless: boolean;
  trusted: boolean;
  outsideApproved: boolean;
  /** Whether `ctx.delegate` exists (the engine can delegate). */
  delegate: boolean;
  /** Whether `ctx.elicit` exists (a configured approver answers servers' questions). */
  elicit: boolean;
  configId: number;
  config?: Config;
}

/** From svc to the Worker. */
export type HostMessage =
  | { t: "load"; entry: string }
  | { t: "call"; id: number; tool: string; args: Record<string, unknown>; ctx: CallContext }
  | { t: "command"; id: number; name: string; args: string }
  /** Run hook `hook` on the event's input; the result's content is what a command would print. */
  | { t: "hook"; id: number; hook: number; input: Record<string, unknown> }
  | { t: "cancel"; id: number }
  /** The answer to a Worker's `ask`, `elicit` or `delegate` request `req`. */
  | { t: "answer"; req: number; value: unknown };

/** From the Worker to svc. */
export type WorkerMessage =
  /** A load phase started: `import`, then each hook; svc times each one. */
  | { t: "phase"; phase: string }
  | { t: "loaded"; registrations: RegistrationData }
  | { t: "failed"; error: string }
  | { t: "result"; id: number; output: ToolOutput }
  /**
   * The call threw: svc turns it into a tool error (or `[cancelled]` after a cancel); `denied`
   * when Deno refused a permission the plugin was not granted.
   */
  | { t: "error"; id: number; message: string; denied?: boolean }
  | { t: "status"; id: number; line: string }
  | { t: "print"; id: number; text: string }
  | { t: "ask"; id: number; req: number; request: AskRequest }
  | { t: "delegate"; id: number; req: number; type: string; task: string }
  | { t: "elicit"; id: number; req: number; request: ElicitationRequest }
  /** Console output of the plugin (svc writes it to stderr, never stdout). */
  | { t: "log"; text: string };
