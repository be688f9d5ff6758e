import type * as z from "zod";
import type { Action, Category, Config, ToolPermission } from "../config/schema.ts";
import type { Resolved } from "../policy/evaluate.ts";
import type { Zod } from "./zod_api.ts";

export type { Action, Category, Resolved, ToolPermission };

/** What a tool may ask of the front-end during a call. */
export interface AskRequest {
  question: string;
  context?: string;
  options?: string[];
  target: "human" | "lead";
}

/** A connected MCP server's form question (`elicitation/create`), put to the configured approver. */
export interface ElicitationRequest {
  /** The MCP server's name in `mcp.servers`. */
  server: string;
  message: string;
  /** `form` (svc answers no other mode). */
  mode: string;
  /** The server's `requestedSchema`, as it sent it. */
  requested_schema: Record<string, unknown>;
}

/** The configured approver's answer to a server's question, checked against its form. */
export interface ElicitationDecision {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
  /** Who answered, with why when declined: `the approver (Elicitation hook: ...)`. */
  author: string;
}

/** Everything a tool's `run` may use. Tools touch the world only through these and Deno APIs. */
export interface ToolContext {
  /** Absolute, canonical worktree path. */
  worktree: string;
  /** Aborted when the turn is cancelled; long-running tools must honour it. */
  signal: AbortSignal;
  config: Readonly<Config>;
  /** Resolved session name of the calling engine. */
  session: string;
  /** True for run, serve, jobs, sub-agents and fleet agents. */
  headless: boolean;
  /** Answers an `ask` question; resolves null when there is no one to answer. */
  ask(request: AskRequest): Promise<string | null>;
  /**
   * Puts an MCP server's form question to the configured approver (`Elicitation` hooks, then
   * `approver.mcp_tool` headless; docs/mcp_client.md): its checked answer, or null when it leaves
   * the question undecided (then `ask` the person, or decline). Absent where none is configured.
   */
  elicit?(request: ElicitationRequest): Promise<ElicitationDecision | null>;
  /** Ephemeral activity line for the front-end; never persisted. */
  status(line: string): void;
  /**
   * Runs a sub-agent of the named agent type on a task and resolves with its answer (the
   * `delegate` tool); absent where no engine can delegate (served MCP calls).
   */
  delegate?(type: string, task: string): Promise<ToolOutput>;
  /**
   * Whether the worktree is trusted (`svc trust`); absent means it is not. A plugin should honour
   * settings files inside the worktree (`.svc/<plugin>.json`) only when true: an untrusted
   * worktree's files come with the repository.
   */
  trusted?: boolean;
  /**
   * A path argument lay outside the worktree when the policy judged this call, and the call was
   * approved for it. Without it a tool keeps what it writes inside the worktree, even when a
   * symbolic link changes after the check (`writeFileAtomic`'s `confineTo`).
   */
  outsideApproved?: boolean;
  /**
   * Records `path`'s content before the tool changes it, so the turn can be undone (`svc undo`);
   * the confined writer calls it with `before` (see `ConfinedWriteOptions`). Absent where nothing
   * records (served MCP calls, in-memory sessions).
   */
  beforeWrite?(path: string): Promise<void>;
  /**
   * Where the file tools read and write text instead of the disk: an editor's buffers over ACP
   * (`svc acp`, docs/acp.md). The policy has judged the call before the tool runs, as always.
   */
  files?: FileAccess;
  /**
   * Runs a shell command in the front-end's terminal (an ACP editor's) instead of as svc's child
   * process; `runShell` uses it only for a command the OS sandbox would not hold anyway.
   */
  terminal?: TerminalRunner;
  /**
   * Adds and removes the calling plugin's own tools in the tools offered from the next turn on
   * (an MCP client's imported tools); given only to tools that declare `usesHost`.
   */
  host?: ToolHost;
}

/** One command for a front-end's terminal: the program, its arguments and where it runs. */
export interface TerminalRun {
  program: string;
  args: string[];
  cwd: string;
  /** Variables to set (svc's secret variables, set empty so the command does not see them). */
  env: Record<string, string>;
  timeoutS: number;
  signal: AbortSignal;
}

/** How a terminal command ended: its output (stdout and stderr together) and exit code. */
export interface TerminalResult {
  /** Exit code; 128 + signal number when killed by a signal; -1 when it could not start. */
  code: number;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
}

/** Runs one command in a front-end's terminal and waits for it. */
export type TerminalRunner = (run: TerminalRun) => Promise<TerminalResult>;

/**
 * A file-access backend of the file tools (`file_read`, `file_write`, `file_edit`): paths are
 * absolute and already judged by the policy; a rejection is the tool's error result. What it
 * lacks (an editor that reads but does not write) the tools do on disk.
 */
export interface FileAccess {
  /** The text of the file, as the editor has it (an unsaved buffer included). */
  readText?(path: string, signal: AbortSignal): Promise<string>;
  /** Replaces the file's text (the editor writes it, and shows it in an open buffer). */
  writeText?(path: string, content: string, signal: AbortSignal): Promise<void>;
}

/**
 * The narrow host interface of tools that manage tools of their own. A runtime hands each plugin
 * the same object every time, so a plugin may key what it keeps per runtime on it.
 */
export interface ToolHost {
  /** Offers `tool` from the next turn on; throws when another plugin or svc owns the name. */
  add(tool: Tool): void;
  /** Withdraws a tool this plugin added; false when it added none of that name. */
  remove(name: string): boolean;
  /** Names of the tools this plugin added, in the order added. */
  list(): string[];
}

/** A function tool as advertised to the model (the chat-completions `tools` item). */
export interface ToolSchema {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A tool result. `ok: false` marks an error result the model should see and correct. */
export interface ToolOutput {
  content: string;
  ok?: boolean;
  /** One-line status for the front-end (for example a diff preview); not sent to the model. */
  status?: string;
  /**
   * Images the result carries beside its text (a `file_read` of an image, an imported MCP tool's
   * image content); served MCP calls return them as image content. `content` describes them.
   */
  images?: ToolImage[];
}

/** An image in a tool result or a prompt: base64 data and its MIME type. */
export interface ToolImage {
  data: string;
  mimeType: string;
  /** Where a prompt's image came from (a file name), shown to people; never sent to the model. */
  name?: string;
}

/** Arguments handed to a per-invocation policy resolver. */
export type ResolverArgs = Record<string, unknown> & {
  _permissions: ToolPermission;
  /** The merged config, for resolvers that judge configured commands (dev.*_cmd). */
  _config?: Readonly<Config>;
  /** The config keys an untrusted worktree's own `.svc/config.json` set (PolicyScope). */
  _worktreeKeys?: readonly string[];
};

/**
 * One tool: name, category, schema and description written for the model, and `run`.
 * Validation, normalization, permission checks and result caps happen in the registry and loop.
 */
export interface Tool {
  name: string;
  category: Category;
  /** Written for the model; keep it short. */
  description: string;
  /**
   * zod object schema of the arguments; undeclared arguments are dropped before `run`. A function
   * of zod (`zodApi`) builds it on first use instead (arg_schema.ts), which keeps zod off the
   * start of a turn that does not call the tool.
   */
  schema: z.ZodObject | ((zod: Zod) => z.ZodObject);
  /**
   * The JSON schema advertised for the arguments when it comes from elsewhere (an MCP server's
   * `inputSchema`, size-capped by its plugin). Without it the advertised schema is derived from
   * `schema`, which validates the arguments either way.
   */
  parameters?: Record<string, unknown>;
  /** Call-time spellings that resolve to this tool. */
  aliases?: string[];
  /** Extra argument aliases (alias -> canonical) beyond the global table. */
  argAliases?: Record<string, string>;
  /**
   * Names of arguments that hold file paths. The engine canonicalizes them against the worktree
   * and escalates `allow` to `ask` when one points outside it.
   */
  pathArgs?: string[];
  /**
   * Paths held inside other arguments (the git tool's `args` list mixes options, revisions and
   * paths); judged like `pathArgs`.
   */
  pathsOf?(args: Record<string, unknown>): unknown[];
  /**
   * Per-invocation policy resolver; returns undefined to keep the category action. It can only
   * tighten: an action, or `{ action, reason }` whose reason the audit and the approver show
   * (`run_command policy requires ask: names a path outside the worktree: ../x`).
   */
  resolvePolicy?(args: ResolverArgs, worktree: string): Resolved | undefined;
  /**
   * The commands this tool runs start inside svc's OS sandbox (`runShell`, docs/security.md): a
   * `sandboxed` bash category lets such a tool run without asking while the sandbox can run.
   */
  runsInSandbox?: boolean;
  /** The tool adds or removes tools of its own at run time: its context carries `host`. */
  usesHost?: boolean;
  /**
   * Why the tool has nothing to do under this config (mcp_connect without any `mcp.servers`), or
   * undefined when it has. An unavailable tool is not offered, as if the policy denied it, and the
   * audit gives this reason.
   */
  unavailable?(config: Readonly<Config>): string | undefined;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<string | ToolOutput>;
}
