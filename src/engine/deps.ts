import type { Catalog } from "../catalog/types.ts";
import type { Config, ToolPermission } from "../config/schema.ts";
import type { ChatClient, Reasoning } from "../provider/types.ts";
import type { SessionLog } from "../session/log.ts";
import type { Approver } from "../tool/approval.ts";
import type { ElicitationApprover } from "../tool/elicitation_approver.ts";
import type { HookRunner } from "../tool/hooks.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { AskRequest, FileAccess, TerminalRunner, Tool, ToolHost } from "../tool/types.ts";
import type { TurnLimits } from "./budget.ts";
import type { Clock } from "../util/time.ts";

/** The lead of a sub-agent, consulted by `ask` with target 'lead'. */
export interface Lead {
  client: ChatClient;
  model: string;
  task: string;
  reasoning?: Reasoning;
}

/** Another source of tools for the per-turn view (an MCP client's imports, the delegate tool). */
export interface ToolSource {
  tools(): readonly Tool[];
}

/** The tools of an engine: the base registry and the sources plugged into each turn's view. */
export interface EngineTools {
  /** Built once from the plugins; sealed. */
  base: ToolRegistry;
  sources: readonly ToolSource[];
  /** The host interface for a tool that declares `usesHost`. */
  hostFor?(tool: Tool): ToolHost | undefined;
}

/** Opens the session of a sub-agent, linked both ways to `parent` (`sub_sessions`, `parent_id`). */
export type OpenSubSession = (parent: SessionLog) => Promise<SessionLog>;

/** The human channel of the `ask` tool. */
export type AskHuman = (request: AskRequest, signal: AbortSignal) => Promise<string | null>;

/**
 * What an engine is built from besides the runtime's config: the front-end's choices, and what a
 * derived (child) engine changes. Config-shaped keys merge over the parent's: tool_permission per
 * category, tools.deny added to the parent's list.
 */
export interface EngineOverrides {
  system_prompt?: string;
  mode?: "plan" | "build";
  tool_permission?: Partial<ToolPermission>;
  "tools.deny"?: readonly string[];
  /** Backend and model; a model named only by an agent type or team passes the approval gate
   * only when approved or `approveModel` is set. */
  provider?: string;
  model?: string;
  modelFrom?: "flag" | "type" | "user";
  approveModel?: boolean;
  /** Headless engines never prompt (default true). */
  headless?: boolean;
  /** Answers ask-gated calls; default: denied by the policy. */
  approver?: Approver;
  askHuman?: AskHuman;
  /** The session turns go to when `runTurn` names none. */
  session?: SessionLog;
  /** Agent type prompt (sub-agents, jobs), placed before system_prompt. */
  typePrompt?: string;
  lead?: Lead;
  /** More tool sources for this engine (and its children). */
  sources?: readonly ToolSource[];
  /** `--permission-prompt-tool`: the MCP tool that answers a headless engine's asks. */
  permissionPromptTool?: string;
  /** The limits of each turn (`--max-turns`, a job's limits), over `limits.*` of the config. */
  limits?: TurnLimits;
  /** The file tools read and write through this backend (an ACP editor's), not the disk. */
  files?: FileAccess;
  /** Unsandboxed commands run in this terminal (an ACP editor's), not as svc's children. */
  terminal?: TerminalRunner;
}

/** What a runtime gives every engine it builds for delegation and team runs. */
export interface AgentSupport {
  /** The merged agent types, teams and skills (loaded once, on first use). */
  catalog(): Promise<Catalog>;
  openSubSession: OpenSubSession;
  /** Passes a type's model through the approval gate (rejects with why it is refused). */
  checkModel(model: string): Promise<void>;
}

/** Everything an engine is made of; only the runtime layer assembles it. */
export interface EngineDeps {
  /** The effective config: the runtime's with this engine's overrides applied. */
  config: Config;
  /** Absolute, canonical worktree. */
  worktree: string;
  /** The worktree is trusted (`svc trust`); tools see it as `ToolContext.trusted`. */
  trusted: boolean;
  /** The keys an untrusted worktree's own config set (see PolicyScope.worktreeKeys). */
  worktreeKeys?: readonly string[];
  client: ChatClient;
  model: string;
  provider: string;
  tools: EngineTools;
  headless: boolean;
  approver: Approver;
  askHuman?: AskHuman;
  lead?: Lead;
  typePrompt?: string;
  session?: SessionLog;
  /** 0 for an engine a front-end built; a sub-agent's is its lead's plus one. */
  depth: number;
  /** Delegation and team runs; absent where an engine cannot delegate. */
  agents?: AgentSupport;
  /** The worktree's hooks (docs/hooks.md); absent where none are configured or registered. */
  hooks?: HookRunner;
  /** The run's `--permission-prompt-tool`, inherited by derived engines. */
  permissionPromptTool?: string;
  /** The configured approver of MCP servers' questions (elicitation_approver.ts), when any. */
  elicitation?: ElicitationApprover;
  /** The time the environment block's date is taken from; default the real clock (tests fake it). */
  clock?: Clock;
  /** The file tools' backend when it is not the disk (an ACP editor's); derived engines share it. */
  files?: FileAccess;
  /** The front-end's terminal for unsandboxed commands (an ACP editor's); shared likewise. */
  terminal?: TerminalRunner;
}
