import type { Action, BashLevel, Category, ToolPermission } from "../config/schema.ts";
import { DEFAULT_ACTIONS } from "../shared/types.ts";
export { DEFAULT_ACTIONS };

/**
 * A tool's own verdict on one call: an action, or an action with the reason the audit records
 * when it tightens the category action. `unlessSandboxed` marks a verdict about what only the OS
 * sandbox bounds (a recursive read that may follow a link out, an expansion of unknown size): it
 * does not apply to a call the sandbox holds.
 */
export type Resolved = Action | { action: Action; reason: string; unlessSandboxed?: boolean };

/** Whether the OS sandbox holds this call's command, and if not, why (bash category tools). */
export interface SandboxState {
  holds: boolean;
  /** Why it does not hold, for the audit and the person asked. */
  why?: string;
}

/** Everything the policy needs to judge one tool call; no I/O happens in here. */
export interface PolicyInput {
  tool: string;
  category: Category;
  permissions: ToolPermission;
  toolsAllow: readonly string[];
  toolsDeny: readonly string[];
  mode?: "plan" | "build";
  /** A path argument resolves outside the worktree (after symlinks). */
  outsideWorktree?: boolean;
  /** An edit targets svc's or git's control files (`.svc/`, `.git/`) inside the worktree. */
  controlFiles?: boolean;
  /** The tool's own per-invocation resolver verdict, if it gave one. */
  resolved?: Resolved;
  /** For a bash category tool: whether the OS sandbox holds the command it runs. */
  sandbox?: SandboxState;
}

export interface Decision {
  action: Action;
  reason: string;
}

const SEVERITY: Record<Action, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * Decides allow, ask or deny. Name lists come first, then plan mode, then the category action;
 * a resolver can only tighten it, and a path outside the worktree escalates allow to ask.
 */
export function decide(input: PolicyInput): Decision {
  const { tool, category } = input;
  if (input.toolsDeny.includes(tool)) return { action: "deny", reason: "listed in tools.deny" };
  if (input.toolsAllow.length > 0 && !input.toolsAllow.includes(tool)) {
    return { action: "deny", reason: "not listed in tools.allow" };
  }
  if (input.mode === "plan" && (category === "edit" || category === "bash")) {
    return { action: "deny", reason: `plan mode denies the ${category} category` };
  }
  const level: BashLevel = input.permissions[category] ?? DEFAULT_ACTIONS[category];
  const held = input.sandbox?.holds === true;
  if (level === "sandboxed") {
    // Everything runs without asking inside the sandbox: it bounds what bash_allow cannot see.
    if (held) return { action: "allow", reason: `${category} category is sandboxed` };
  }
  let action: Action = level === "sandboxed" ? "ask" : level;
  let reason = level === "sandboxed"
    ? `${category} category is sandboxed, but no OS sandbox holds the command (${
      input.sandbox?.why ?? "not a sandboxed tool"
    })`
    : `${category} category is ${action}`;
  const given = typeof input.resolved === "string" ? { action: input.resolved } : input.resolved;
  const resolved = given && "unlessSandboxed" in given && given.unlessSandboxed && held
    ? undefined
    : given;
  if (resolved && SEVERITY[resolved.action] > SEVERITY[action]) {
    action = resolved.action;
    reason = `${tool} policy requires ${action}`;
    if ("reason" in resolved && resolved.reason) reason += `: ${resolved.reason}`;
  }
  if (input.outsideWorktree && action === "allow") {
    return { action: "ask", reason: "path is outside the worktree" };
  }
  if (input.controlFiles && action === "allow") {
    return { action: "ask", reason: "edits svc or git control files (.svc/, .git/)" };
  }
  return { action, reason };
}

/** Whether a tool is advertised to the model at all: denied tools are removed from the schema. */
export function isOffered(input: Omit<PolicyInput, "outsideWorktree" | "resolved">): boolean {
  return decide(input).action !== "deny";
}
