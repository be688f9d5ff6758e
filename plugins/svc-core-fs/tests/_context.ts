/** Test support: a real temp worktree and a ToolContext over it. */
import { dirname, join } from "node:path";
import { type Config, ConfigSchema } from "../../../src/config/schema.ts";
import type { ToolContext, ToolOutput } from "../../../src/plugin/api.ts";
import { toolContext } from "../../../src/tool/context.ts";

/** A temp worktree holding `files` (path -> text or bytes), removed on dispose. */
export async function worktree(files: Record<string, string | Uint8Array> = {}) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-fs-" }));
  for (const [name, content] of Object.entries(files)) {
    const path = join(root, name);
    await Deno.mkdir(dirname(path), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
  }
  return {
    root,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** A ToolContext for `root` with default config, overridden by `config`. */
export function context(
  root: string,
  config: Partial<Config> = {},
  signal = new AbortController().signal,
): ToolContext {
  return toolContext({
    worktree: root,
    signal,
    config: { ...ConfigSchema.parse({}), ...config },
    session: "test",
    headless: true,
    trusted: false,
  });
}

/** True when ripgrep is on PATH, so the tests of the ripgrep engine can run. */
export const hasRipgrep = (() => {
  try {
    return new Deno.Command("rg", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();

/** The text of a result that must be a success. */
export function text(result: string | ToolOutput): string {
  if (typeof result === "string") return result;
  throw new Error(`expected a success, got ${JSON.stringify(result)}`);
}
