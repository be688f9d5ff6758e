/**
 * The Deno permissions svc's entry points run with (`deno task svc`, the command `deno task
 * install` installs, the binary `deno task compile` builds): each kind svc needs and no more, never
 * `-A`. docs/security.md explains each one; a sandboxed plugin's Worker can only narrow them.
 */
export const SVC_PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-run",
  "--allow-env",
  "--no-prompt",
] as const;
