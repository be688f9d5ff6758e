/**
 * Spawns `main.ts` as a user would, with a temp HOME and worktree, and with the permissions of
 * svc's entry points (never `-A`), so every end-to-end test also proves that set sufficient
 * (builds.ts runs the installed build the same way).
 */
import { type CliResult, runBuild, spawnBuild, TEST_BUILD } from "./builds.ts";
import { networkEnv } from "../../src/tool/network_env.ts";

export type { CliResult };

/** A temp HOME and worktree pair, removed on dispose. */
export async function sandbox(
  files: Record<string, string> = {},
  options: { trusted?: boolean } = {},
) {
  const home = await Deno.makeTempDir({ prefix: "svc-home-" });
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  for (const [name, content] of Object.entries(files)) {
    const path = `${worktree}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, content);
  }
  if (options.trusted) {
    // What `svc trust` writes: the worktree's own config and plugins then apply in full.
    await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
    await Deno.writeTextFile(`${home}/.config/svc/trusted.json`, JSON.stringify([worktree]));
  }
  return {
    home,
    worktree,
    // The proxy and certificate settings of this process: svc, and children that clear their
    // environment, may download packages (an MCP server run with `deno run npm:`).
    env: { HOME: home, NO_COLOR: "1", ...networkEnv() },
    async [Symbol.asyncDispose]() {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(worktree, { recursive: true });
    },
  };
}

/** Runs svc (the test bundle, else the source tree: `TEST_BUILD`) to completion. */
export function svc(
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
): Promise<CliResult> {
  return runBuild(TEST_BUILD, args, options);
}

/** Spawns svc (`TEST_BUILD`) and returns the live process (for signals). */
export function spawnSvc(args: string[], options: { cwd: string; env: Record<string, string> }) {
  return spawnBuild(TEST_BUILD, args, options);
}
