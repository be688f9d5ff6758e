/** glob: files and directories matching a pattern, recursively, noise directories skipped. */
import { isAbsolute, join } from "../../../src/plugin/api.ts";
import type { ArgsOf, Zod } from "../../../src/plugin/api.ts";
import type { Tool, ToolContext, ToolOutput } from "../../../src/plugin/api.ts";
import { fail, fsError, resolvePath } from "../../../src/plugin/api.ts";
import { displayPath } from "./common.ts";
import { ripgrepFiles } from "./ripgrep.ts";
import { parentDirs, pathMatcher, scanBase, walkFiles } from "./walk.ts";

/** Most matches glob lists before its marker. */
export const GLOB_MAX_MATCHES = 200;

const schema = (z: Zod) =>
  z.object({
    pattern: z.string().describe("e.g. *.ts or src/**/*.py"),
    path: z.string().optional().describe("default ."),
  });

/** The glob tool. */
export const glob: Tool = {
  name: "glob",
  category: "read",
  description:
    "Find files and dirs by glob, recursively; a pattern without / matches names at any depth. Dirs end with /. Skips noise dirs (.git, node_modules...). Max 200.",
  schema,
  pathArgs: ["path"],
  run: (args, ctx) => globFiles(args as ArgsOf<typeof schema>, ctx),
};

async function globFiles(
  args: ArgsOf<typeof schema>,
  ctx: ToolContext,
): Promise<string | ToolOutput> {
  const root = resolvePath(ctx.worktree, args.path ?? ".");
  if (typeof root !== "string") return root;
  const pattern = args.pattern.replace(/^(\.\/)+/, "");
  if (pattern === "" || pattern.includes("\0")) return fail("Pattern is empty or holds a NUL byte");
  if (isAbsolute(pattern) || pattern.split("/").includes("..")) {
    return fail("Pattern must be relative; set path to search another directory");
  }
  const shown = displayPath(ctx.worktree, root);
  try {
    if (!(await Deno.stat(root)).isDirectory) return fail(`Not a directory: ${shown}`);
  } catch (err) {
    return fsError(err, shown);
  }
  const base = await walkBase(root, await scanBase(pattern));
  const found = base === null ? [] : await listFiles(root, base, { signal: ctx.signal });
  const matches = await matchPaths(found, pattern);
  if (matches.length === 0) return `No matches for ${args.pattern} in ${shown}`;
  const prefix = shown === "." ? "" : `${shown.replace(/\/$/, "")}/`;
  const lines = matches.slice(0, GLOB_MAX_MATCHES).map((path) => prefix + path);
  if (matches.length > GLOB_MAX_MATCHES) {
    lines.push(
      `[... showing ${GLOB_MAX_MATCHES} of ${matches.length} matches; narrow the pattern]`,
    );
  }
  return lines.join("\n");
}

/** Sorted matches of `pattern` among `files` and their parent directories (marked with /). */
export async function matchPaths(files: string[], pattern: string): Promise<string[]> {
  const isMatch = await pathMatcher(pattern);
  const out = files.filter((path) => isMatch(path));
  for (const dir of parentDirs(files)) if (isMatch(dir)) out.push(`${dir}/`);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Where to start walking: the pattern's literal base, or its parent when it names a file. */
async function walkBase(root: string, base: string): Promise<string | null> {
  try {
    if ((await Deno.stat(join(root, base))).isDirectory) return base;
    const cut = base.lastIndexOf("/");
    return cut === -1 ? "" : base.slice(0, cut);
  } catch {
    return null;
  }
}

/** Files under root/base as paths relative to root: ripgrep when installed, else the walk. */
export async function listFiles(
  root: string,
  base: string,
  { signal }: { signal: AbortSignal },
): Promise<string[]> {
  const dir = base ? join(root, base) : root;
  const files = (await ripgrepFiles(dir, signal)) ?? (await walkFiles(dir, signal));
  return base ? files.map((path) => `${base}/${path}`) : files;
}
