/**
 * The API handed to plugins. A plugin's entry module (manifest `entry`, default `mod.ts`) exports
 * any of these hooks; each receives a registrar and may be async. Plugins import only this file
 * and `src/tool/types.ts`.
 */
import type { Config } from "../config/schema.ts";
import type { Tool, ToolHost } from "../tool/types.ts";
export type {
  AskRequest,
  ElicitationDecision,
  ElicitationRequest,
  Tool,
  ToolContext,
  ToolHost,
  ToolOutput,
} from "../tool/types.ts";
/** An MCP server's form question: its fields' choices and the checks of an answer. */
export {
  type Choice,
  choicesOf,
  type FieldSchema,
  type FieldValue,
  type FormSchema,
  parseField,
} from "../tool/elicitation_form.ts";
import type { PluginHookDef } from "../tool/hooks.ts";
export type { HookEvent, PluginHookDef } from "../tool/hooks.ts";
export type { ArgsOf, SchemaBuilder, Zod } from "../tool/arg_schema.ts";
export { loadZod } from "../tool/arg_schema.ts";
export { bashAllowed, bashAllowPolicy } from "../policy/bash_allow.ts";
/** Reads a settings file safely: regular files only, never more than a cap (FIFOs do not hang). */
export { readTextCapped, UnreadableFileError } from "../util/fs.ts";
/** Tool-result wording shared by the bundled tools: error results, paths, filesystem errors. */
export { fail, fsError, plural, resolvePath } from "./tool_helpers.ts";
/**
 * Replaces a file crash-safely (temp file, fsync, rename); `keepMode` keeps its permissions,
 * `confineTo` keeps the write inside a folder even when a symbolic link is swapped meanwhile.
 */
export { writeFileAtomic } from "../util/atomic.ts";
/**
 * POSIX path functions with `node:path`'s results, without loading Deno's Node layer at start
 * (src/util/posix_path.ts).
 */
export {
  basename,
  dirname,
  extname,
  isAbsolute,
  join,
  normalize,
  relative,
  resolve,
  sep,
} from "../util/posix_path.ts";
/** Sends a signal to the process group a child was started in (false when it is gone). */
export { signalGroup } from "../util/process_group.ts";
/** The command line that runs this svc again (`svc <args>` as this process was started). */
export { type CommandLine, svcCommand } from "../launch/svc_command.ts";

/**
 * Why an MCP server entry may not start in `worktree`, or null: a stdio server the worktree's own
 * `.svc/config.json` names starts only with this person's approval (config/mcp_approvals.ts,
 * loaded on first use).
 */
export async function mcpServerRefusal(
  entry: import("../config/mcp_approvals.ts").ServerSpec,
  worktree: string,
): Promise<string | null> {
  const { serverRefusal } = await import("../config/mcp_approvals.ts");
  return await serverRefusal(entry, worktree);
}

import type { ProviderDef } from "../shared/types.ts";
export type { ProviderDef };

/** A slash command added by a plugin (REPL `/name`). */
export interface CommandDef {
  name: string;
  description: string;
  run(args: string, io: { print(text: string): void }): Promise<void>;
}

export interface AgentTypeDef {
  name: string;
  system_prompt: string;
  model?: string;
  tool_permission?: Record<string, unknown>;
  skills?: string[];
  description?: string;
}

export interface TeamDef {
  name: string;
  stages: Array<
    string | { type: string; mode?: string; task_hint?: string; handoff_note?: string }
  >;
  description?: string;
  tags?: string[];
}

export interface SkillDef {
  name: string;
  content: string;
  description?: string;
  tags?: string[];
}

/** A tool as a service sees it: the JSON schema of its arguments instead of the zod one. */
export interface ServiceToolInfo {
  name: string;
  category: Tool["category"];
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The outcome of a service's tool call; `ok: false` marks an error result, refusals included. */
export interface ServiceToolResult {
  content: string;
  ok: boolean;
  /** Images the tool returned beside its text (base64 data, MIME type). */
  images?: Array<{ data: string; mimeType: string }>;
}

/** Who is calling: whether the client proved itself (the bearer token of `svc serve`). */
export interface ClientInfo {
  /** True for a client that sent the server's token, and for the process that ran `svc mcp`. */
  authenticated: boolean;
}

/**
 * The tools a service may expose: the policy-filtered registered tools, without those that need a
 * person to answer (`ask`). Every call is normalized, policy-checked (ask-gated calls run only for
 * an authenticated client while `mcp_server.allow_ask` is true, deny never), audited and serialized
 * with `/chat` turns. Never throws for tool failures; they come back as results.
 */
export interface ServiceTools {
  list(): ServiceToolInfo[];
  /**
   * Without `client` the caller counts as unauthenticated; `observer` hears what the call reports
   * while it runs (MCP progress and logging).
   */
  call(
    name: string,
    args: unknown,
    signal: AbortSignal,
    client?: ClientInfo,
    observer?: ServiceCallObserver,
  ): Promise<ServiceToolResult>;
}

/** What a served tool call reports while it runs. */
export interface ServiceCallObserver {
  /** An activity line of the running tool (run_command's latest output line). */
  status?(line: string): void;
  /** A warning about the call (a hook's notice). */
  warning?(message: string): void;
}

/** Saved sessions, read-only: serving never mutates a session. */
export interface ServiceSessions {
  /** Saved session names, sorted. */
  list(): Promise<string[]>;
  /** The stored session document; rejects when the name is invalid or not saved. */
  read(name: string): Promise<unknown>;
  /**
   * Calls `onChange(name)` after session `name`'s file changed (written, appended, removed);
   * returns the function that stops watching.
   */
  watch?(onChange: (name: string) => void): () => void;
}

/**
 * An HTTP endpoint mounted by `svc serve`; it only sees requests that passed the host's guard, and
 * `client` says whether the request carried the server's token (false under `--no-auth`).
 */
export interface HttpEndpoint {
  fetch(request: Request, client?: ClientInfo): Promise<Response>;
  /** Called once on shutdown. */
  close?(): Promise<void>;
}

/** What `svc serve` hands `http.create`: host capabilities, never the engine itself. */
export interface ServiceContext {
  /** Absolute, canonical worktree. */
  worktree: string;
  version: string;
  tools: ServiceTools;
  sessions: ServiceSessions;
  /** Endpoints the host implements and a service may mount (the host owns the protocol code). */
  endpoints: { mcp(): HttpEndpoint };
}

/** What a service's `start` gets: the runtime's worktree and config, and its plugin's tool host. */
export interface ServiceStartContext {
  /** Absolute, canonical worktree. */
  worktree: string;
  config: Readonly<Config>;
  /** Whether the worktree is trusted (`svc trust`). */
  trusted: boolean;
  /** The same host the plugin's `usesHost` tools get: tools added here are offered from the start. */
  host: ToolHost;
}

/** A long-running service started by the host (for example the MCP HTTP route). */
export interface ServiceDef {
  name: string;
  /**
   * Runs once per runtime, before its first engine is built (every front-end that runs turns:
   * `svc run`, `svc serve`); the runtime waits for it. Returns warnings for the user; a throw
   * becomes the warning `service <name> start failed: ...`. The service bounds its own time.
   */
  start?(ctx: ServiceStartContext): Promise<string[] | void>;
  /**
   * An HTTP endpoint mounted by `svc serve` at `path` (exact match, never a core route), behind
   * the host's Host, Origin and token checks: a plain `handler`, or `create(ctx)` called once
   * at startup with the host's capabilities.
   */
  http?: {
    path: string;
    handler?(request: Request): Promise<Response>;
    create?(ctx: ServiceContext): HttpEndpoint | Promise<HttpEndpoint>;
  };
}

/** An eval fixture (`svc eval`); docs/eval.md describes every key. */
export interface EvalFixtureDef {
  id: string;
  description?: string;
  prompt: string;
  /** Relative path to content, written into each trial's temporary worktree. */
  files?: Record<string, string>;
  /** The tool-name trace a good run makes. */
  expected?: string[];
  /** Categories changed from the eval defaults: read, list, edit, web; allow or deny. */
  permissions?: Record<string, string>;
  /** The verifier: exact, must_include, avoid, max_calls, min_calls, args, answer, files. */
  verify?: Record<string, unknown>;
}

/** Registrars passed to the entry hooks, one per hook. */
export interface PluginHooks {
  register_tools?(registry: { add(tool: Tool): void }): void | Promise<void>;
  register_providers?(providers: { add(provider: ProviderDef): void }): void | Promise<void>;
  register_commands?(commands: { add(command: CommandDef): void }): void | Promise<void>;
  register_types?(types: { add(type: AgentTypeDef): void }): void | Promise<void>;
  register_teams?(teams: { add(team: TeamDef): void }): void | Promise<void>;
  register_skills?(skills: { add(skill: SkillDef): void }): void | Promise<void>;
  register_services?(services: { add(service: ServiceDef): void }): void | Promise<void>;
  register_fixtures?(fixtures: { add(fixture: EvalFixtureDef): void }): void | Promise<void>;
  /**
   * Hooks for the events of docs/hooks.md: `{event, matcher?, timeout?, run(input)}`, where `run`
   * gets the event's JSON input and returns the output a hook command prints (a sandboxed
   * plugin's `run` is a message to its Worker, under the time limit of plugin calls).
   */
  register_hooks?(hooks: { add(hook: PluginHookDef): void }): void | Promise<void>;
}
