/** A temp global config folder and worktree for catalog tests, removed on dispose. */
import { dirname, join } from "node:path";
import { loadCatalog } from "../../src/catalog/mod.ts";
import type { AgentTypeDef, SkillDef, TeamDef } from "../../src/plugin/api.ts";

/** Files relative to the global folder (`types.json`, `skills/x.md`) and to the worktree. */
export interface Layout {
  global?: Record<string, string | object>;
  local?: Record<string, string | object>;
}

async function write(root: string, files: Record<string, string | object>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const path = join(root, name);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(
      path,
      typeof content === "string" ? content : JSON.stringify(content),
    );
  }
}

export async function catalogDirs(layout: Layout = {}) {
  const globalDir = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-global-" }));
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  await write(globalDir, layout.global ?? {});
  await write(worktree, layout.local ?? {});
  return {
    globalDir,
    worktree,
    /** The catalog of this worktree with this global folder. */
    load(
      trusted: boolean,
      plugins: { types?: AgentTypeDef[]; teams?: TeamDef[]; skills?: SkillDef[] } = {},
    ) {
      return loadCatalog({ worktree, trusted, plugins, globalDir });
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(globalDir, { recursive: true });
      await Deno.remove(worktree, { recursive: true });
    },
  };
}
