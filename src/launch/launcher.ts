/**
 * The installed `svc` command is a launcher script (scripts/install.ts writes it) that runs svc
 * with a Deno cache folder of its own and V8's `--no-lazy`, so Deno's code cache holds every
 * function of svc, compiled once (docs/performance.md). The launcher sets `DENO_DIR` and
 * `DENO_NO_UPDATE_CHECK` for svc and saves the caller's values in `SVC_OUTER_<name>`; svc puts the
 * caller's values back before it starts anything, so the commands svc runs (bash, hooks, MCP
 * servers, plugin sandboxes) see the user's environment, not svc's cache. `SVC_LAUNCHER` names the
 * launcher, which is how svc starts itself again (fleet agents, the detached supervisor, jobs).
 */

/** What the launcher sets for svc alone. */
export const LAUNCHER_ENV = ["DENO_DIR", "DENO_NO_UPDATE_CHECK"] as const;

/** The prefix under which the launcher saves the caller's value of each of LAUNCHER_ENV. */
export const OUTER_PREFIX = "SVC_OUTER_";

let launcher: string | undefined;

/**
 * Called first thing at start: when the launcher started this process, remembers its path and
 * gives the environment back the caller's values (a variable the caller had not set is removed).
 */
export function adoptLauncherEnv(): void {
  const path = Deno.env.get("SVC_LAUNCHER");
  if (path === undefined) return;
  Deno.env.delete("SVC_LAUNCHER");
  if (path) launcher = path;
  for (const name of LAUNCHER_ENV) {
    const outer = Deno.env.get(`${OUTER_PREFIX}${name}`);
    if (outer === undefined) Deno.env.delete(name);
    else Deno.env.set(name, outer);
    Deno.env.delete(`${OUTER_PREFIX}${name}`);
  }
}

/** The launcher script that started this svc, if one did. */
export function launcherPath(): string | undefined {
  return launcher;
}
