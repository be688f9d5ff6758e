import type { Config } from "../config/schema.ts";
import { decide, type Decision, isOffered, type SandboxState } from "../policy/evaluate.ts";
import { pointsOutside, touchesControlFiles } from "../policy/scope.ts";
import type { Tool } from "./types.ts";
import { sandboxState } from "../sandbox/mod.ts";
import type { ToolRegistry } from "./registry.ts";

/** What the policy needs from an engine (or any other caller of tools) besides the call itself. */
export interface PolicyScope {
  config: Config;
  /** Absolute, canonical worktree. */
  worktree: string;
  mode?: "plan" | "build";
  /** The worktree is trusted (`svc trust`); tools see it as `ToolContext.trusted`. */
  trusted?: boolean;
  /**
   * The config keys an untrusted worktree's own `.svc/config.json` set; resolvers get them as
   * `_worktreeKeys`, so a tool asks before it runs a command the repository chose (`dev.*_cmd`).
   */
  worktreeKeys?: readonly string[];
}

/**
 * A policy decision and whether a path argument lay outside the worktree when it was judged (the
 * run is told, so a symlink swapped after the check cannot move a write outside).
 */
export interface Verdict extends Decision {
  outsideWorktree: boolean;
}

/**
 * The policy verdict for one normalized tool call: name lists, mode, category action, the tool's
 * own resolver and worktree scoping. Shared by the agent loop and the MCP server so no caller can
 * assemble a weaker policy input.
 */
export function judgeToolCall(
  tool: Tool,
  { args, scope, sandbox }: {
    args: Record<string, unknown>;
    scope: PolicyScope;
    /** For a bash category tool, whether the OS sandbox holds it (`toolSandboxState`). */
    sandbox?: SandboxState;
  },
): Verdict {
  const permissions = scope.config.tool_permission;
  const paths = [...(tool.pathArgs?.map((k) => args[k]) ?? []), ...(tool.pathsOf?.(args) ?? [])];
  const outsideWorktree = paths.length > 0 && pointsOutside(scope.worktree, paths);
  const decision = decide({
    tool: tool.name,
    category: tool.category,
    permissions,
    toolsAllow: scope.config["tools.allow"],
    toolsDeny: scope.config["tools.deny"],
    mode: scope.mode ?? scope.config.mode,
    outsideWorktree,
    controlFiles: tool.category === "edit" && touchesControlFiles(scope.worktree, paths),
    resolved: tool.resolvePolicy?.(
      {
        ...args,
        _permissions: permissions,
        _config: scope.config,
        _worktreeKeys: scope.worktreeKeys ?? [],
      },
      scope.worktree,
    ),
    ...(sandbox ? { sandbox } : {}),
  });
  return { ...decision, outsideWorktree };
}

/**
 * Whether the OS sandbox holds a call of `tool` under `config`: only bash category tools that
 * run their commands through it (`runsInSandbox`) and only where a sandbox can run.
 */
export async function toolSandboxState(
  tool: Tool,
  config: Readonly<Config>,
): Promise<SandboxState | undefined> {
  if (tool.category !== "bash") return undefined;
  if (!tool.runsInSandbox) return { holds: false, why: `${tool.name} does not run in the sandbox` };
  return await sandboxState({ mode: config["sandbox.mode"] ?? "workspace-write" });
}

/**
 * The tools advertised to the model (and to MCP clients): denied ones removed, none when
 * tool_calling is off, canonical names only.
 */
export function offeredTools(registry: ToolRegistry, scope: PolicyScope): Tool[] {
  if (!scope.config.tool_calling) return [];
  return registry.list().filter((tool) =>
    !tool.unavailable?.(scope.config) && isOffered(offerInput(tool, scope))
  );
}

/**
 * Why a registered tool is not offered (the model is told it is unknown; the audit says why):
 * tool_calling off, or the policy's deny reason.
 */
export function whyNotOffered(tool: Tool, scope: PolicyScope): string {
  if (!scope.config.tool_calling) return "not offered: tool_calling is off";
  const unavailable = tool.unavailable?.(scope.config);
  if (unavailable) return `not offered: ${unavailable}`;
  return `not offered: ${decide(offerInput(tool, scope)).reason}`;
}

/** The policy input that decides whether a tool is offered at all (no arguments yet). */
function offerInput(tool: Tool, scope: PolicyScope) {
  const { config } = scope;
  return {
    tool: tool.name,
    category: tool.category,
    permissions: config.tool_permission,
    toolsAllow: config["tools.allow"],
    toolsDeny: config["tools.deny"],
    mode: scope.mode ?? config.mode,
  };
}
