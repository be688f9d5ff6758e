/**
 * A sandboxed plugin's grant: the Deno permissions its Worker gets, how they are passed to a
 * Worker and to `deno test`, and how svc shows them. No dependencies, so the CLI can show a
 * grant without loading the plugin manager.
 */

/** Stands for "whichever worktree svc runs in" in the grant of a global plugin at install. */
export const WORKTREE = "<worktree>";

/** What a sandboxed plugin's Worker may touch; empty lists grant nothing. */
export interface PluginGrant {
  /** Absolute paths; the plugin's own folder first. */
  read: string[];
  write: string[];
  /** Hosts (`host` or `host:port`), or `any`. */
  net: string[] | "any";
  /** Program names (found on PATH) or paths. */
  run: string[];
  env: string[];
  /** Hosts remote modules may be imported from (the manifest's `https:` and `jsr:` requires). */
  import: string[];
  /** Granted paths inside svc's own folder `~/.config/svc` (API keys, trust list). */
  sensitive: string[];
  /**
   * The plugin's tools may hand tasks to sub-agents (`ctx.delegate`), which act with their own
   * permissions, not the plugin's grant; only when the manifest asks for it.
   */
  delegate?: boolean;
}

/** The Worker option `deno.permissions` for a grant: exactly the grant, nothing inherited. */
export function workerPermissions(grant: PluginGrant): Deno.PermissionOptionsObject {
  const list = <T>(items: T[]) => (items.length ? items : false);
  return {
    read: grant.read,
    write: list(grant.write),
    net: grant.net === "any" ? true : list(grant.net),
    run: list(grant.run),
    env: list(grant.env),
    import: list(grant.import),
    sys: false,
    ffi: false,
  };
}

/** `deno test` flags giving a plugin's own tests the same permissions as its Worker. */
export function denoFlags(grant: PluginGrant): string[] {
  const flag = (name: string, items: string[]) =>
    items.length ? [`--allow-${name}=${items.join(",")}`] : [];
  return [
    "--no-prompt",
    ...flag("read", grant.read),
    ...flag("write", grant.write),
    ...(grant.net === "any" ? ["--allow-net"] : flag("net", grant.net)),
    ...flag("run", grant.run),
    ...flag("env", grant.env),
    ...flag("import", grant.import),
  ];
}

/**
 * One line per permission, for `svc plugins install` and `svc trust`: what the plugin may touch
 * once it runs (its own folder is always readable).
 */
export function describeGrant(grant: PluginGrant, worktree: string): string[] {
  const place = (p: string) =>
    p === worktree || p === WORKTREE
      ? "the worktree"
      : grant.sensitive.includes(p)
      ? `${p} (inside svc's own folder, which holds API keys)`
      : p;
  const lines: string[] = [];
  const extraRead = grant.read.slice(1);
  if (extraRead.length) lines.push(`read: ${extraRead.map(place).join(", ")}`);
  if (grant.write.length) lines.push(`write: ${grant.write.map(place).join(", ")}`);
  if (grant.net === "any") lines.push("net: any host");
  else if (grant.net.length) lines.push(`net: ${grant.net.join(", ")}`);
  if (grant.run.length) {
    lines.push(
      `run: ${grant.run.join(", ")} (the plugin then runs in svc's OS sandbox, unless ` +
        "sandbox.mode is danger-full-access)",
    );
  }
  if (grant.env.length) lines.push(`env: ${grant.env.join(", ")}`);
  if (grant.import.length) lines.push(`import: ${grant.import.join(", ")}`);
  if (grant.delegate) {
    lines.push(
      "delegate: its tools may hand tasks to sub-agents (which act with their own permissions, " +
        "not this grant)",
    );
  }
  return lines;
}

/** The compact form `svc plugins list` shows: `read=worktree net=api.example.com`, or `none`. */
export function grantSummary(grant: PluginGrant, worktree: string): string {
  const place = (p: string) => (p === worktree || p === WORKTREE ? "worktree" : p);
  const parts: string[] = [];
  const extraRead = grant.read.slice(1);
  if (extraRead.length) parts.push(`read=${extraRead.map(place).join(",")}`);
  if (grant.write.length) parts.push(`write=${grant.write.map(place).join(",")}`);
  if (grant.net === "any") parts.push("net=any");
  else if (grant.net.length) parts.push(`net=${grant.net.join(",")}`);
  if (grant.run.length) parts.push(`run=${grant.run.join(",")}`);
  if (grant.env.length) parts.push(`env=${grant.env.join(",")}`);
  if (grant.import.length) parts.push(`import=${grant.import.join(",")}`);
  if (grant.delegate) parts.push("delegate");
  return parts.join(" ") || "none";
}
