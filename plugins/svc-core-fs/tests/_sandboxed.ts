/**
 * Test support: runs one svc-core-fs tool in a child Deno whose read permission excludes
 * `denied`, the way a sandboxed plugin meets a directory it may not read (root ignores chmod).
 * As a script: `_sandboxed.ts <tool> <worktree> <json args>` prints the JSON result.
 */
import { fileURLToPath } from "node:url";
import { tools } from "../mod.ts";
import { context } from "./_context.ts";

/** Runs `tool` with `args` in a child process that may not read `denied` nor spawn processes. */
export async function runSandboxed(
  tool: string,
  root: string,
  args: Record<string, unknown>,
  denied: string,
): Promise<unknown> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      `--deny-read=${denied}`,
      "--allow-env",
      fileURLToPath(import.meta.url),
      tool,
      root,
      JSON.stringify(args),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`sandboxed run failed: ${stderr}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

if (import.meta.main) {
  const [name, root, json] = Deno.args;
  const tool = tools.find((t) => t.name === name)!;
  console.log(JSON.stringify(await tool.run(JSON.parse(json), context(root))));
}
