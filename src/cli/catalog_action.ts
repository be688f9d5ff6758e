/**
 * The actions of `svc types`, `svc skills` and `svc teams`: the worktree's catalog through its
 * runtime, as a table, one entry in full, or JSON. Warnings (broken files) go to stderr.
 */
import {
  type Catalog,
  type CatalogKind,
  catalogTable,
  ONE,
  Runtime,
  showEntry,
} from "../runtime/mod.ts";
import { visibleControls } from "../util/terminal_text.ts";

export type { CatalogKind };

/** Flags of every catalog command. */
export interface CatalogFlags {
  json?: boolean;
  path?: string;
}

async function load(flags: CatalogFlags): Promise<Catalog> {
  const runtime = await Runtime.load({ path: flags.path });
  // The runtime's warnings include the catalog's.
  for (const warning of runtime.warnings) console.error(`warning: ${visibleControls(warning)}`);
  return await runtime.catalog();
}

/** Prints every entry of one catalog. */
export async function list(kind: CatalogKind, flags: CatalogFlags): Promise<void> {
  const catalog = await load(flags);
  const entries = [...catalog[kind].values()];
  if (flags.json) {
    console.log(JSON.stringify(entries, null, 2));
    return;
  }
  if (!entries.length) {
    console.log(`No ${kind} found (see svc ${kind} --help)`);
    return;
  }
  console.log(catalogTable(kind, catalog));
}

/** Prints one entry in full; an unknown name fails with the names there are. */
export async function show(
  kind: CatalogKind,
  name: string,
  options: CatalogFlags,
): Promise<void> {
  const catalog = await load(options);
  const entry = catalog[kind].get(name);
  if (!entry) {
    const names = [...catalog[kind].keys()];
    throw new Error(
      `unknown ${ONE[kind]} "${name}"; available: ${names.length ? names.join(", ") : "none"}`,
    );
  }
  if (options.json) console.log(JSON.stringify(entry, null, 2));
  // Skill and agent files come from the worktree: untrusted text on a terminal.
  else console.log(visibleControls(showEntry(catalog, { kind, name }) ?? ""));
}
