import { resolve } from "node:path";
import { pathExists } from "../util/fs.ts";
import { isInside } from "../util/paths.ts";
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
  } else if (!before.includes(target)) {
    console.log(`${target} was not in the trust list`);
  } else console.log(`No longer trusted: ${target}`);
  if (flags.remove && via) console.log(`It is still trusted through ${via}`);
}
