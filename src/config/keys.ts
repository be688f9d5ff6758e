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

/** Keys removed from svc; they are rejected with a message, never aliased. */
export const REMOVED_KEYS: Record<string, string> = {
  api_key: "API keys live only in ~/.config/svc/providers.json; run /connect <provider>",
  "plugins.enabled": "use the `plugins` list",
  "plugins.deny": "use the `plugins` list",
  max_context: "removed; compaction uses compact_keep",
  "max-context": "removed; compaction uses compact_keep",
  persona: "renamed: agent types (`--type`, types.json)",
};
