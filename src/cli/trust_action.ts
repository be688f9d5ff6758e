import { resolve } from "../util/posix_path.ts";
import { pathExists } from "../util/fs.ts";
import { isInside } from "../util/canonical_path.ts";
import { loadTrusted, setTrusted, trustedPath } from "../config/trust.ts";
import { resolveWorktree } from "../runtime/worktree.ts";
import { UsageError } from "./usage.ts";

/** Flags of `svc trust`. */
export interface TrustFlags {
  remove?: boolean;
  list?: boolean;
  json?: boolean;
}

/** Runs `svc trust`: lists, adds or removes one trusted folder and says what changed. */
export async function trust(folder: string | undefined, flags: TrustFlags): Promise<void> {
  if (flags.list) {
    if (folder || flags.remove) throw new UsageError("--list takes no folder and no --remove");
    const { folders, warning } = await loadTrusted();
    if (warning) console.error(`warning: ${warning}`);
    if (flags.json) console.log(JSON.stringify(folders, null, 2));
    else if (folders.length) console.log(folders.join("\n"));
    else console.error(`No trusted folders (${trustedPath()})`);
    return;
  }
  // A folder that no longer exists can still be removed from the list.
  const target = flags.remove && folder && !(await pathExists(folder))
    ? resolve(folder)
    : resolveWorktree(folder);
  const before = (await loadTrusted()).folders;
  const after = await setTrusted(target, flags.remove);
  const via = after.find((f) => isInside(f, target));
  if (flags.json) {
    console.log(JSON.stringify({ folder: target, trusted: Boolean(via), folders: after }, null, 2));
    return;
  }
  if (!flags.remove) {
    console.log(`Trusted ${target}: its .svc/config.json and .svc/plugins now apply in full`);
    for (const line of await localPluginAsks(target)) console.log(line);
  } else if (!before.includes(target)) {
    console.log(`${target} was not in the trust list`);
  } else console.log(`No longer trusted: ${target}`);
  if (flags.remove && via) console.log(`It is still trusted through ${via}`);
}

/** What the worktree's own plugins ask for, now that they will load (sandboxed). */
async function localPluginAsks(worktree: string): Promise<string[]> {
  const { describeGrant, discoverPlugins, grantFor } = await import("../plugin/mod.ts");
  const local = (await discoverPlugins({ worktree, trustLocal: true }))
    .filter((c) => c.origin === "local" && c.manifest);
  if (local.length === 0) return [];
  const lines = ["Its plugins run sandboxed; each may use:"];
  for (const c of local) {
    const granted = grantFor(c.manifest!, { pluginDir: c.dir, worktree });
    const asks = granted.ok
      ? describeGrant(granted.grant, worktree)
      : [`not loaded: ${granted.error}`];
    lines.push(`  ${c.name}: ${asks.length ? asks.join("; ") : "nothing beyond its own folder"}`);
  }
  return lines;
}
