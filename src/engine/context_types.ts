import type { Config } from "../config/schema.ts";
import type { ChatClient, Reasoning } from "../provider/types.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { AskRequest, Category } from "../tool/types.ts";

/** A question to the operator about one ask-gated tool call. Resolves true to run it. */
export type Approver = (
  request: { tool: string; category: Category; args: Record<string, unknown>; reason: string },
  signal: AbortSignal,
) => Promise<boolean>;

/** The lead of a sub-agent, consulted by `ask` with target 'lead'. */
export interface Lead {
  client: ChatClient;
  model: string;
  task: string;
  /** The lead's `reasoning` config, applied to its answer. */
  reasoning?: Reasoning;
}

/** What an engine is built from; front-ends assemble it (see src/cli). */
export interface EngineDeps {
  config: Config;
  /** Absolute, canonical worktree. */
  worktree: string;
  client: ChatClient;
  model: string;
  provider: string;
  registry: ToolRegistry;
  /** Headless engines never prompt: ask-gated calls are denied unless `approve` is given. */
  headless: boolean;
  /** Answers ask-gated calls; absent means deny with `[cancelled]`. */
  approve?: Approver;
  /** The human channel of the `ask` tool; absent when no one can answer. */
  askHuman?: (request: AskRequest, signal: AbortSignal) => Promise<string | null>;
  lead?: Lead;
  /** Agent type prompt and mode (sub-agents, jobs). */
  typePrompt?: string;
  mode?: "plan" | "build";
  /** The worktree is trusted (`svc trust`); tools see it as `ToolContext.trusted`. */
  trusted?: boolean;
}
