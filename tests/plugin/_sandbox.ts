/**
 * Helpers for the sandbox tests: one plugin source installed twice, as a bundled plugin (svc's
 * process, fully trusted: what any plugin could do before the sandbox) and as a global one (its
 * own Worker with the manifest's permissions), so each attack is shown to work unsandboxed first.
 */
import { loadPlugins, type LoadResult } from "../../src/plugin/load.ts";
import type { ToolContext, ToolOutput } from "../../src/tool/types.ts";
import { type Layout, manifest, testContext, writePlugin } from "./_helpers.ts";

/** A plugin entry whose one tool, `probe` (category read), runs `body` with `args` and `ctx`. */
export function probeEntry(body: string): string {
  return `import { z } from "zod";
export function register_tools(registry) {
  registry.add({
    name: "probe",
    category: "read",
    description: "Runs the test's probe",
    schema: z.object({ arg: z.string().optional() }),
    async run(args, ctx) {
${body}
    },
  });
}
`;
}

/** What one call came back with: its result, or the message of the error it threw. */
export type Outcome = ToolOutput | { error: string };

/** Calls a loaded tool; a thrown error becomes `{ error }` (svc's tool-call path words it). */
export async function call(
  loaded: LoadResult,
  arg?: string,
  ctx?: ToolContext,
  worktree = "/",
): Promise<Outcome> {
  const tool = loaded.tools.find((t) => t.name === "probe");
  if (!tool) throw new Error(`probe not loaded: ${JSON.stringify(loaded.plugins)}`);
  try {
    const out = await tool.run(arg === undefined ? {} : { arg }, ctx ?? testContext(worktree));
    return typeof out === "string" ? { content: out } : out;
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** The same probe as a trusted bundled plugin and as a sandboxed global one, loaded. */
export async function bothWays(
  t: Layout,
  body: string,
  permissions: unknown = {},
  files: Record<string, string> = {},
): Promise<{ trusted: LoadResult; sandboxed: LoadResult } & Disposable> {
  const source = probeEntry(body);
  await writePlugin(t.bundledDir, "trusted", {
    "manifest.json": manifest("trusted"),
    "mod.ts": source,
    ...files,
  });
  await writePlugin(t.globalDir, "probe", {
    "manifest.json": manifest("probe", { permissions }),
    "mod.ts": source,
    ...files,
  });
  const trusted = await loadPlugins({ ...t.roots, names: ["trusted"] });
  const sandboxed = await loadPlugins({ ...t.roots, names: ["probe"] });
  return { trusted, sandboxed, [Symbol.dispose]: () => sandboxed.close() };
}

/** A sandboxed global plugin `probe` with `permissions`, loaded. */
export async function sandboxedProbe(
  t: Layout,
  body: string,
  permissions: unknown = {},
  timeoutMs?: number,
  callTimeoutMs?: number,
): Promise<LoadResult & Disposable> {
  await writePlugin(t.globalDir, "probe", {
    "manifest.json": manifest("probe", { permissions }),
    "mod.ts": probeEntry(body),
  });
  const loaded = await loadPlugins({ ...t.roots, names: ["probe"], timeoutMs, callTimeoutMs });
  return Object.assign(loaded, { [Symbol.dispose]: () => loaded.close() });
}

/** Command lines of the running sandbox processes of the plugin `name` (Linux: /proc). */
export function sandboxProcesses(name: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let args: string[];
    try {
      args = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
    } catch {
      continue; // ended meanwhile
    }
    if (args.some((a) => a.endsWith("/sandbox_process.ts")) && args.at(-2) === name) {
      found.push(args.join(" "));
    }
  }
  return found;
}

/** Waits until no sandbox process of `name` runs (a killed one takes a moment); false if one does. */
export async function sandboxGone(name: string): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (sandboxProcesses(name).length === 0) return true;
    await new Promise((done) => setTimeout(done, 20));
  }
  return false;
}
