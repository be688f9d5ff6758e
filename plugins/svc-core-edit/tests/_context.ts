/** Test support: a real temp worktree and a ToolContext over it. */
import { dirname, join } from "node:path";
import { ConfigSchema } from "../../../src/config/schema.ts";
import type { ToolContext } from "../../../src/plugin/api.ts";
import { toolContext } from "../../../src/tool/context.ts";

/** A temp worktree holding `files` (path -> text or bytes), removed on dispose. */
export async function worktree(files: Record<string, string | Uint8Array> = {}) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-edit-" }));
  for (const [name, content] of Object.entries(files)) {
    const path = join(root, name);
    await Deno.mkdir(dirname(path), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
  }
  return {
    root,
    path: (name: string) => join(root, name),
    read: (name: string) => Deno.readTextFile(join(root, name)),
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** A ToolContext for `root` with default config. */
export function context(root: string, signal = new AbortController().signal): ToolContext {
  return toolContext({
    worktree: root,
    signal,
    config: ConfigSchema.parse({}),
    session: "test",
    headless: true,
    trusted: false,
  });
}

/** Names in `dir`, sorted: proves no temp file was left behind. */
export async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}
