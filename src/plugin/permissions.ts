/**
 * A plugin's Deno permissions: what its manifest may declare, and the exact grant a sandboxed
 * (global or local) plugin's Worker gets from it. Nothing declared means nothing granted beyond
 * reading the plugin's own folder (its code has to load).
 */
import { isAbsolute, join, resolve } from "../util/posix_path.ts";
import * as z from "zod";
import { globalConfigDir } from "../util/dirs.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import { type PluginGrant, WORKTREE } from "./grant.ts";

export type { PluginGrant } from "./grant.ts";

/** Deno permission names a manifest may declare. */
export const PLUGIN_PERMISSIONS = ["read", "write", "net", "run", "env"] as const;

const path = z.string().min(1).max(1000).refine(
  (p) => !p.includes("\0") && (p === "~" || p.startsWith("~/") || isAbsolute(p)),
  { message: "must be an absolute path or start with ~/" },
);
const paths = z.union([z.boolean(), z.array(path).max(100)]);
/** `host`, `host:port`, an IPv4 address or `[ipv6]`, with an optional port. */
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const host = z.string().max(300).regex(HOST, { message: "must be a host or host:port" });
const program = z.string().min(1).max(300).refine((p) => !/[\0\n]/.test(p), {
  message: "must be a program name or path",
});
const variable = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, {
  message: "must be an environment variable name",
});

/**
 * The manifest's `permissions`: the object form lists what each permission covers; the older
 * list of names (`["read", "net"]`) still parses, and bundled plugins use it as documentation.
 */
export const PermissionsSchema = z.union([
  z.array(z.enum(PLUGIN_PERMISSIONS)).max(PLUGIN_PERMISSIONS.length),
  z.strictObject({
    read: paths.optional(),
    write: paths.optional(),
    net: z.union([z.boolean(), z.array(host).max(100)]).optional(),
    run: z.array(program).max(100).optional(),
    env: z.array(variable).max(100).optional(),
    /** svc's own permission: the plugin's tools may call `ctx.delegate` (run sub-agents). */
    delegate: z.boolean().optional(),
  }),
], {
  error: 'must be an object such as {"read": true, "net": ["api.example.com"], "run": ["git"]}',
}).default([]);

/** The `permissions` field as written in a manifest. */
export type DeclaredPermissions = z.infer<typeof PermissionsSchema>;

/** Where a grant is resolved: the plugin folder, the worktree and HOME's svc folder. */
export interface GrantPlaces {
  pluginDir: string;
  /** Null for a global plugin judged apart from any worktree (its grant shows `WORKTREE`). */
  worktree: string | null;
  /** Default `~/.config/svc` (API keys, trust list, global plugins); see `grantFor`. */
  configDir?: string;
  /** Default HOME; expands `~/` in listed paths. */
  home?: string;
}

/**
 * The exact grant of a sandboxed plugin, or why it cannot have one: `read` and `write` cover the
 * worktree plus any listed absolute (or `~/`) paths, `net` the listed hosts (`true`: any host),
 * `run` and `env` the listed programs and variables (both must name what they cover), `delegate`
 * lets the plugin's tools run sub-agents (`ctx.delegate`). svc's own
 * folder `~/.config/svc` (API keys, trust list, global plugins) is never written and never covered
 * by a broader grant (a worktree that contains it, `~`, `/`); a path inside it is readable only
 * when listed by name, and is marked `sensitive` so svc says so wherever it shows the grant.
 */
export function grantFor(
  manifest: { permissions: DeclaredPermissions; requires: readonly string[] },
  places: GrantPlaces,
): { ok: true; grant: PluginGrant } | { ok: false; error: string } {
  const declared = normalize(manifest.permissions);
  if (typeof declared === "string") return { ok: false, error: declared };
  let configDir: string;
  try {
    configDir = configDirOf(places.configDir);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  const home = places.home ?? Deno.env.get("HOME") ?? "";
  const pluginDir = canonical(places.pluginDir);
  const worktree = places.worktree === null ? WORKTREE : canonical(places.worktree);
  const grant: PluginGrant = {
    read: [pluginDir],
    write: [],
    net: declared.net ?? [],
    run: declared.run ?? [],
    env: declared.env ?? [],
    import: importHosts(manifest.requires),
    sensitive: [],
    ...(declared.delegate ? { delegate: true } : {}),
  };
  for (const kind of ["read", "write"] as const) {
    const extra = declared[kind];
    if (extra === undefined) continue;
    const list: string[] = [];
    for (const [i, given] of [worktree, ...extra].entries()) {
      if (given === WORKTREE) {
        list.push(given);
        continue;
      }
      const where = i === 0 ? "the worktree" : `"${given}"`;
      const absolute = i > 0 && (given === "~" || given.startsWith("~/"))
        ? join(home, given.slice(1))
        : resolve(given);
      const path = canonical(absolute);
      const refuse = (why: string) => ({
        ok: false as const,
        error: `permissions.${kind}: ${where} (${path}) ${why}`,
      });
      if (isInside(path, configDir)) {
        return refuse(
          `contains svc's own folder ${configDir} (API keys, trust list)` +
            (i === 0 ? "; run svc from a project folder" : ""),
        );
      }
      if (isInside(configDir, path)) {
        if (kind === "write") return refuse(`is inside svc's own folder ${configDir}`);
        if (i === 0) return refuse(`is inside svc's own folder ${configDir}`);
        grant.sensitive.push(path);
      }
      const local = worktree !== WORKTREE && isInside(worktree, pluginDir);
      if (kind === "write" && isInside(path, pluginDir) && !local) {
        return refuse("contains the plugin's own folder (it could rewrite its manifest)");
      }
      if (!list.includes(path)) list.push(path);
    }
    grant[kind] = kind === "read" ? [pluginDir, ...list.filter((p) => p !== pluginDir)] : list;
  }
  return { ok: true, grant };
}

interface Normalized {
  read?: string[];
  write?: string[];
  net?: string[] | "any";
  run?: string[];
  env?: string[];
  delegate?: boolean;
}

/** Both manifest forms as one shape; `run` and `env` must list what they cover. */
function normalize(declared: DeclaredPermissions): Normalized | string {
  if (Array.isArray(declared)) {
    for (const kind of ["run", "env"] as const) {
      if (declared.includes(kind)) {
        const example = kind === "run" ? `{"run": ["git"]}` : `{"env": ["GITHUB_TOKEN"]}`;
        return `permissions: "${kind}" must list what it covers, for example "permissions": ${example}`;
      }
    }
    return {
      ...(declared.includes("read") ? { read: [] } : {}),
      ...(declared.includes("write") ? { write: [] } : {}),
      ...(declared.includes("net") ? { net: "any" as const } : {}),
    };
  }
  const out: Normalized = {};
  if (declared.read) out.read = declared.read === true ? [] : declared.read;
  if (declared.write) out.write = declared.write === true ? [] : declared.write;
  if (declared.net) out.net = declared.net === true ? "any" : declared.net;
  if (declared.run?.length) out.run = [...new Set(declared.run)];
  if (declared.env?.length) out.env = [...new Set(declared.env)];
  if (declared.delegate) out.delegate = true;
  return out;
}

/** svc's own folder as grants judge it: `~/.config/svc`, symbolic links resolved. */
export function configDirOf(configDir?: string): string {
  return canonical(configDir ?? globalConfigDir());
}

function canonical(path: string): string {
  return canonicalPath(path, ".");
}

function importHosts(requires: readonly string[]): string[] {
  const hosts = new Set<string>();
  for (const spec of requires) {
    if (spec.startsWith("jsr:")) hosts.add("jsr.io");
    else if (spec.startsWith("https://")) {
      try {
        hosts.add(new URL(spec).host);
      } catch {
        // validated by the manifest schema; an unparsable one grants nothing
      }
    }
  }
  return [...hosts].sort();
}
