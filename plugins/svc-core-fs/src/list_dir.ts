/** list_dir: sorted directory entries with sizes, or an indented tree when depth > 1. */
import { join } from "../../../src/plugin/api.ts";
import type { ArgsOf, Zod } from "../../../src/plugin/api.ts";
import type { Tool, ToolContext, ToolOutput } from "../../../src/plugin/api.ts";
import { fail, fsError, resolvePath } from "../../../src/plugin/api.ts";
import { displayPath, formatSize, NOISE_DIRS } from "./common.ts";

const schema = (z: Zod) =>
  z.object({
    path: z.string().optional().describe("Default ."),
    depth: z.number().int().min(1).optional().describe("Default 1"),
  });

/** Deepest tree list_dir renders, whatever depth is asked. */
const MAX_DEPTH = 12;
/** Entries read before a tree stops expanding directories (the total is then a lower bound). */
const WALK_LIMIT = 20_000;

interface Node {
  name: string;
  kind: "dir" | "file" | "link" | "other";
  /** Children when expanded; a string when the directory was not expanded, saying why. */
  children?: Node[] | string;
}

/** The list_dir tool. */
export const listDir: Tool = {
  name: "list_dir",
  category: "list",
  description:
    "List a directory: sorted entries, dirs end with /, file sizes. depth > 1 shows an indented tree (.git, node_modules and other noise dirs stay closed).",
  schema,
  aliases: ["ls"],
  pathArgs: ["path"],
  run: (args, ctx) => listDirectory(args as ArgsOf<typeof schema>, ctx),
};

async function listDirectory(
  args: ArgsOf<typeof schema>,
  ctx: ToolContext,
): Promise<string | ToolOutput> {
  const abs = resolvePath(ctx.worktree, args.path ?? ".");
  if (typeof abs !== "string") return abs;
  const shown = displayPath(ctx.worktree, abs);
  let roots: Node[];
  let partial = false;
  try {
    const info = await Deno.stat(abs);
    if (!info.isDirectory) return fail(`Not a directory: ${shown}; use file_read`);
    const walk = { left: WALK_LIMIT, signal: ctx.signal };
    roots = await readLevel(abs, Math.min(args.depth ?? 1, MAX_DEPTH), walk);
    partial = walk.left < 0;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return fsError(err, shown);
  }
  const total = countNodes(roots);
  const title = shown.endsWith("/") ? shown : `${shown}/`;
  if (total === 0) return `${title} (empty)`;
  const cap = ctx.config.list_dir_max_entries;
  const count = partial ? `${total}+` : `${total}`;
  const lines: string[] = [`${title} (${count} ${total === 1 ? "entry" : "entries"})`];
  await render(roots, abs, "", lines, cap > 0 ? cap + 1 : Infinity);
  if (cap > 0 && total > cap) {
    lines.push(
      `[... showing ${cap} of ${count} entries; list a subdirectory or use a smaller depth]`,
    );
  }
  return lines.join("\n");
}

/**
 * Reads one directory level, recursing into subdirectories while `depth` and the walk's entry
 * budget allow; directories left closed by the budget are marked "not expanded".
 */
async function readLevel(
  dir: string,
  depth: number,
  walk: { left: number; signal: AbortSignal },
): Promise<Node[]> {
  const { signal } = walk;
  signal.throwIfAborted();
  const nodes: Node[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const kind = entry.isSymlink
      ? "link"
      : entry.isDirectory
      ? "dir"
      : entry.isFile
      ? "file"
      : "other";
    nodes.push({ name: entry.name, kind });
  }
  nodes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  walk.left -= nodes.length;
  if (depth > 1) {
    for (const node of nodes) {
      if (node.kind !== "dir") continue;
      if (NOISE_DIRS.has(node.name) || walk.left < 0) node.children = "not expanded";
      else {
        try {
          node.children = await readLevel(join(dir, node.name), depth - 1, walk);
        } catch (err) {
          if (signal.aborted) throw err;
          node.children = "unreadable";
        }
      }
    }
  }
  return nodes;
}

function countNodes(nodes: Node[]): number {
  let total = nodes.length;
  for (const node of nodes) if (Array.isArray(node.children)) total += countNodes(node.children);
  return total;
}

/** Appends entries in tree order until `lines` holds `limit` lines (the title included). */
async function render(
  nodes: Node[],
  dir: string,
  indent: string,
  lines: string[],
  limit: number,
): Promise<void> {
  const room = Math.max(0, limit - lines.length);
  const labels = await Promise.all(nodes.slice(0, room).map((node) => label(node, dir)));
  for (let i = 0; i < nodes.length && lines.length < limit; i++) {
    const node = nodes[i];
    lines.push(indent + (labels[i] ?? await label(node, dir)));
    if (Array.isArray(node.children)) {
      await render(node.children, join(dir, node.name), `${indent}  `, lines, limit);
    }
  }
}

/** One entry's text: `name/`, `name (size)`, `name -> target`, with a note when not expanded. */
async function label(node: Node, dir: string): Promise<string> {
  const path = join(dir, node.name);
  if (node.kind === "dir") {
    return typeof node.children === "string" ? `${node.name}/ [${node.children}]` : `${node.name}/`;
  }
  try {
    if (node.kind === "link") return `${node.name} -> ${await Deno.readLink(path)}`;
    if (node.kind === "file") return `${node.name} (${formatSize((await Deno.lstat(path)).size)})`;
  } catch {
    // vanished or unreadable between listing and labelling: show the bare name
  }
  return node.name;
}
