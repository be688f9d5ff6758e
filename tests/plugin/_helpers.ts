/** Shared helpers for plugin tests: temp roots, generated plugins, fixture copies. */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SVC_PERMISSIONS } from "../../scripts/permissions.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { type ContextParts, toolContext } from "../../src/tool/context.ts";
import type { ToolContext } from "../../src/tool/types.ts";

/** The repository root. */
export const REPO = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** Fixture plugins stored in the repository. */
export const FIXTURES = join(REPO, "tests", "_support", "plugins");

/** A temp layout: a bundled root, a HOME with its global root, and a worktree. */
export interface Layout extends AsyncDisposable {
  base: string;
  home: string;
  worktree: string;
  bundledDir: string;
  globalDir: string;
  localDir: string;
  /** Root options for the plugin functions. */
  roots: { worktree: string; bundledDir: string; globalDir: string; trustLocal: boolean };
}

/**
 * Creates a fresh temp layout, removed when disposed. The worktree is trusted (as after
 * `svc trust`) unless `trusted` is false, so its own plugins load.
 */
export async function makeLayout(options: { trusted?: boolean } = {}): Promise<Layout> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-plugin-test-" }));
  const home = join(base, "home");
  const worktree = join(base, "work");
  const bundledDir = join(base, "bundled");
  const globalDir = join(home, ".config", "svc", "plugins");
  const localDir = join(worktree, ".svc", "plugins");
  for (const dir of [bundledDir, globalDir, localDir]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  const trusted = options.trusted ?? true;
  if (trusted) {
    await Deno.writeTextFile(
      join(home, ".config", "svc", "trusted.json"),
      JSON.stringify([worktree]),
    );
  }
  return {
    base,
    home,
    worktree,
    bundledDir,
    globalDir,
    localDir,
    roots: { worktree, bundledDir, globalDir, trustLocal: trusted },
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

/** A tool context for calling a loaded plugin's tool directly (as svc's tool-call path would). */
export function testContext(
  worktree: string,
  parts: Partial<ContextParts> = {},
): ToolContext {
  return toolContext({
    worktree,
    config: ConfigSchema.parse({}),
    trusted: false,
    headless: true,
    session: "test",
    signal: new AbortController().signal,
    ...parts,
  });
}

/** The grant of a sandboxed plugin that declares no permissions: reading its own folder. */
export function noGrant(dir: string) {
  return { read: [dir], write: [], net: [], run: [], env: [], import: [], sensitive: [] };
}

/** A manifest object with sensible defaults. */
export function manifest(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    version: "1.0.0",
    svc_version: ">=0.1.0",
    entry: "mod.ts",
    ...extra,
  };
}

/** Writes files (a manifest object becomes manifest.json) into `<root>/<folder>`. */
export async function writePlugin(
  root: string,
  folder: string,
  files: Record<string, string | object>,
): Promise<string> {
  const dir = join(root, folder);
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
    const text = typeof content === "string" ? content : JSON.stringify(content, null, 2);
    await Deno.writeTextFile(join(dir, path), text);
  }
  return dir;
}

/** Entry source registering one tool named `tool` whose result is `result`. */
export function toolEntry(tool: string, result = tool): string {
  return `import { z } from "zod";
export function register_tools(registry) {
  registry.add({ name: ${JSON.stringify(tool)}, category: "read", description: "",
    schema: z.object({}), run: () => Promise.resolve(${JSON.stringify(result)}) });
}\n`;
}

/** Writes a plugin registering one tool. */
export function writeToolPlugin(
  root: string,
  name: string,
  tool: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  return writePlugin(root, name, {
    "manifest.json": manifest(name, extra),
    "mod.ts": toolEntry(tool),
  });
}

/** Copies a stored fixture plugin into `<root>/<folder>`. */
export async function copyFixture(
  fixture: string,
  root: string,
  folder = fixture,
): Promise<string> {
  const from = join(FIXTURES, fixture);
  const to = join(root, folder);
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
  return to;
}

/** Output of one spawned `svc plugins` run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The caller's Deno cache, kept when HOME changes so children need no downloads. */
const DENO_DIR = Deno.env.get("DENO_DIR") ??
  join(
    Deno.env.get("XDG_CACHE_HOME") ??
      join(Deno.env.get("HOME") ?? "/", ".cache"),
    "deno",
  );

/** Runs `svc plugins <args>` as a child process with the layout's HOME, worktree and bundled root. */
export async function runCli(
  t: Layout,
  args: string[],
  cwd = t.worktree,
): Promise<CliRun> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...SVC_PERMISSIONS,
      "--quiet",
      "--config",
      join(REPO, "deno.json"),
      join(REPO, "tests/plugin/_cli.ts"),
      ...args,
    ],
    cwd,
    env: {
      HOME: t.home,
      DENO_DIR,
      SVC_TEST_BUNDLED_DIR: t.bundledDir,
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return {
    code: output.code,
    stdout: text(output.stdout),
    stderr: text(output.stderr),
  };
}

/** Runs git in `cwd` with a fixed identity; throws on failure. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const output = await new Deno.Command("git", {
    args: [
      "-c",
      "user.name=Test",
      "-c",
      "user.email=test@example.com",
      "-c",
      "init.defaultBranch=main",
      ...args,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout).trim();
}
