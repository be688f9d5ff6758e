/**
 * Types shared across layers, at the bottom of the import order: permission actions and
 * categories, turn errors and statuses, the permission audit record and plugin provider
 * definitions. Nothing in here imports anything.
 */

/** Permission actions of the tool policy. */
export const ACTIONS = ["allow", "ask", "deny"] as const;
export type Action = (typeof ACTIONS)[number];

/**
 * The levels of the `bash` category: the actions, plus `sandboxed` (commands run without asking
 * when, and only when, svc's OS sandbox holds them; docs/permissions.md).
 */
export const BASH_LEVELS = [...ACTIONS, "sandboxed"] as const;
export type BashLevel = (typeof BASH_LEVELS)[number];

/** Tool categories of the tool policy. */
export const CATEGORIES = [
  "read",
  "list",
  "edit",
  "bash",
  "web",
  "mcp",
  "delegate",
  "ask",
] as const;
export type Category = (typeof CATEGORIES)[number];

/** A level per category: an action, and for `bash` also `sandboxed`. */
export type CategoryLevels = { [K in Category]?: K extends "bash" ? BashLevel : Action };

/** Category actions when the config names none. SPEC fixes bash, mcp, delegate and ask. */
export const DEFAULT_ACTIONS: Readonly<Record<Category, Action>> = {
  read: "allow",
  list: "allow",
  edit: "ask",
  bash: "ask",
  web: "ask",
  mcp: "ask",
  delegate: "allow",
  ask: "allow",
};

export type TurnStatus = "ok" | "truncated" | "error" | "empty" | "cancelled";

/** A recorded failure: in TurnResult.errors and the session `errors` array. */
export interface TurnError {
  code: string;
  message: string;
  at?: string;
}

/**
 * Who decided an ask-gated call: the person at the terminal, a command-line flag (`--yes`,
 * `--no`), a configured approver (a hook or a permission-prompt MCP tool, docs/hooks.md), an MCP
 * or HTTP client, an editor over ACP (`svc acp`, docs/acp.md), a sub-agent's lead, or the policy
 * itself (allow, deny, or an ask that no one could answer).
 */
export type ApprovalAuthor =
  | "user"
  | "flag"
  | "approver"
  | "client"
  | "editor"
  | "lead"
  | "policy";

/** One audit entry of the `permissions` array: every tool call lands here. */
export interface PermissionRecord {
  at: string;
  call_id: string;
  tool: string;
  category: string;
  /** What the policy decided. */
  action: Action;
  /** What happened: allowed, approved, denied, rejected (by a person) or cancelled. */
  outcome: "allowed" | "approved" | "denied" | "rejected" | "cancelled";
  by: ApprovalAuthor;
  /** For approvals: this call only, or every matching call for the rest of the session. */
  scope?: "once" | "always";
  /** The approval came from an earlier "always" answer of this session. */
  remembered?: boolean;
  reason: string;
}

/** A provider added by a plugin: id, default base address and default model. */
export interface ProviderDef {
  id: string;
  baseUrl: string;
  defaultModel: string;
  /** Extra request headers (never the API key, which svc adds). */
  headers?: Record<string, string>;
}
