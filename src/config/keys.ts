/**
 * The config's constants that code needs without its schema: schema.ts builds zod objects when
 * imported, which an installed svc skips at start while it remembers the config as valid
 * (start_memo.ts).
 */

/** The bundled plugins loaded when the config does not name a `plugins` list. */
export const BUNDLED_PLUGINS = [
  "svc-core-fs",
  "svc-core-edit",
  "svc-core-exec",
  "svc-core-git",
  "svc-core-dev",
  "svc-core-web",
  "svc-core-mcp",
  "svc-core-eval",
];

/**
 * `sandbox.mode` values, from the strictest (Codex's names): only the private temp folder is
 * writable; the worktree too; no sandbox at all.
 */
export const SANDBOX_MODES = ["read-only", "workspace-write", "danger-full-access"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** What `limits.command` holds when the config names nothing (docs/security.md). */
export const DEFAULT_COMMAND_LIMITS = {
  memory: 4 * 2 ** 30,
  processes: 512,
  file_size: 4 * 2 ** 30,
  open_files: 1024,
} as const;

/** Keys removed from svc; they are rejected with a message, never aliased. */
export const REMOVED_KEYS: Record<string, string> = {
  api_key: "API keys live only in ~/.config/svc/providers.json; run /connect <provider>",
  "plugins.enabled": "use the `plugins` list",
  "plugins.deny": "use the `plugins` list",
  max_context: "removed; compaction uses compact_keep",
  "max-context": "removed; compaction uses compact_keep",
  persona: "renamed: agent types (`--type`, types.json)",
};

/**
 * What an untrusted worktree's `.svc/config.json` may do with a key: `set` it, only `tighten` it
 * (each such key has a rule in trust.ts), or `not` set it. Every key of ConfigSchema is declared
 * here (a test checks it); anything that reads this table treats an undeclared key as `not`.
 */
export type UntrustedUse = "set" | "tighten" | "not";

/** The untrusted use of each config key (see UntrustedUse); a key not named here is `not`. */
export const UNTRUSTED_USE: Readonly<Record<string, UntrustedUse>> = {
  provider: "set",
  // A stored API key is withheld from a base_url an untrusted config chose (resolveConnection).
  base_url: "set",
  model: "set",
  temperature: "set",
  max_tokens: "set",
  reasoning: "set",
  show_thinking: "set",
  // `build` cannot undo a global `plan`.
  mode: "tighten",
  system_prompt: "set",
  // Read only from inside the worktree, trusted or not (nested files too).
  project_instructions: "set",
  // Each drops a line the model is told; what it may do does not change.
  "context.date": "set",
  "context.os": "set",
  "context.worktree": "set",
  "context.git": "set",
  "context.sandbox": "set",
  "context.permissions": "set",
  "context.agents": "set",
  // Local plugins (.svc/plugins/) are not loaded in an untrusted worktree.
  plugins: "set",
  // Only narrows a global whitelist.
  "tools.allow": "tighten",
  // Adds to the global list.
  "tools.deny": "tighten",
  // Actions only stricter; bash_allow only narrows a global list.
  tool_permission: "tighten",
  tool_max_result_chars: "set",
  list_dir_max_entries: "set",
  session_tool_max_chars: "set",
  tool_analysis: "set",
  noise_tools: "set",
  tool_calling: "set",
  // `true` (a search with every prompt) needs the global file.
  web_search: "tighten",
  query_refine: "set",
  query_refine_min_words: "set",
  query_refine_context: "set",
  stream_retries: "set",
  stream_retry_delay: "set",
  stream_idle_timeout: "set",
  stream_ping_timeout: "set",
  connect_check: "set",
  compact_keep: "set",
  // A wrong window only compacts sooner, or later (an overflow is compacted and sent again).
  context_window: "set",
  "compaction.threshold": "set",
  delegate_echo: "set",
  glyph_lines: "set",
  tool_status_visible: "set",
  show_context_size: "set",
  show_version: "set",
  clear_screen: "set",
  markdown_streaming: "set",
  "dev.test_cmd": "set",
  "dev.lint_cmd": "set",
  "dev.format_cmd": "set",
  // Each server starts a process: only an empty list (no servers) is taken.
  "mcp.servers": "tighten",
  // `true` cannot undo a global `false`.
  "mcp_server.allow_ask": "tighten",
  // The sandbox and the limits bound what commands can do: a repository may only narrow them.
  "sandbox.mode": "tighten",
  "sandbox.failIfUnavailable": "tighten",
  "sandbox.filesystem.allowWrite": "tighten",
  "sandbox.filesystem.denyWrite": "tighten",
  "sandbox.filesystem.denyRead": "tighten",
  "sandbox.network.allowedDomains": "tighten",
  "sandbox.network.deniedDomains": "tighten",
  "limits.command": "tighten",
  // A turn's limits: a repository may only lower the user's.
  "limits.max_turns": "tighten",
  "limits.max_tokens_total": "tighten",
  "limits.max_cost": "tighten",
  // Zeroed prices would defeat limits.max_cost.
  prices: "not",
  // Hooks and approvers run the user's programs and answer asks: never from an untrusted worktree.
  hooks: "not",
  "approver.mcp_tool": "not",
  // A shorter or longer wait loosens nothing: a timeout denies.
  approval_timeout: "set",
};

/** How an untrusted worktree may use `key`: its declaration, or `not` when it has none. */
export function untrustedUse(key: string): UntrustedUse {
  return Object.hasOwn(UNTRUSTED_USE, key) ? UNTRUSTED_USE[key] : "not";
}
