/**
 * `deno task bundle`: for machines where `deno compile` cannot run. One code-split build of svc
 * and every bundled plugin writes `dist/main.js`, `dist/plugins/<name>/` (the plugin's `mod.js`
 * plus its manifest) and shared chunks: zod, commander and the engine are loaded once, and what
 * only some commands need (the MCP SDK, prompts, the web fetcher) stays in chunks loaded on use.
 * `deno run <svc's permissions> dist/main.js` then works from any folder without the source tree
 * or node_modules; `dist/deno.json` carries the import map and the unstable flags.
 * An argument names another output folder.
 */
import { join, relative } from "node:path";
import { lazyCommanderBuiltins } from "./bundle_commander.ts";
import { SVC_PERMISSIONS } from "./permissions.ts";
import { scriptArgs } from "./script_args.ts";

const root = new URL("../", import.meta.url).pathname;
const [out] = scriptArgs(
  "Usage: deno task bundle [folder]\n\nBuilds svc and its bundled plugins into folder (default: dist/).",
  Deno.args,
);
const dist = out ?? join(root, "dist");
await Deno.remove(dist, { recursive: true }).catch(() => {});

const plugins: Array<{ name: string; manifest: Record<string, unknown>; entry: string }> = [];
for (const entry of Deno.readDirSync(join(root, "plugins"))) {
  if (!entry.isDirectory) continue;
  const source = join(root, "plugins", entry.name);
  const manifest = JSON.parse(await Deno.readTextFile(join(source, "manifest.json")));
  const main = String(manifest.entry ?? "mod.ts");
  if (!main.endsWith("mod.ts")) throw new Error(`${entry.name}: entry ${main} is not a mod.ts`);
  plugins.push({ name: entry.name, manifest, entry: relative(root, join(source, main)) });
}

const args = [
  "bundle",
  "--quiet",
  "--platform",
  "deno",
  "--code-splitting",
  "--outdir",
  dist,
  "main.ts",
  // The plugin sandbox's modules, loaded by URL: dist/src/plugin/sandbox_worker.js (the Worker)
  // and dist/src/plugin/sandbox_process.js (the child process that hosts it).
  "src/plugin/sandbox_worker.ts",
  "src/plugin/sandbox_process.ts",
  // The EventEmitter commander extends, as plain JavaScript (lazyCommanderBuiltins).
  "src/cli/commander_events.ts",
  ...plugins.map((p) => p.entry),
];
const { success, stderr } = await new Deno.Command(Deno.execPath(), {
  args,
  cwd: root,
  stdout: "inherit",
  stderr: "piped",
}).output();
if (!success) {
  console.error(new TextDecoder().decode(stderr));
  throw new Error("deno bundle failed");
}
await lazyRequire(dist);
await lazyCommanderBuiltins(dist);
for (const plugin of plugins) {
  // esbuild mirrors the source layout: plugins/<name>/mod.ts became plugins/<name>/mod.js.
  const target = join(dist, "plugins", plugin.name);
  await Deno.stat(join(target, "mod.js"));
  const manifest = { ...plugin.manifest, entry: "mod.js" };
  await Deno.writeTextFile(join(target, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}
await writeBuildId(dist);
// Deno reads the deno.json beside the main module: the import map (third-party plugins import bare
// names like `zod`) and the unstable flags (the plugin sandbox's Worker options). No lock file.
const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
const { unstable, imports } = config;
await Deno.writeTextFile(
  join(dist, "deno.json"),
  `${JSON.stringify({ unstable, imports, lock: false }, null, 2)}\n`,
);
console.error(
  `wrote ${dist}/main.js, ${plugins.length} plugins and their shared chunks; ` +
    `run it with: deno run ${SVC_PERMISSIONS.join(" ")} ${dist}/main.js`,
);

/**
 * esbuild's shared helper chunk, which every chunk imports, defines `__require` for the CommonJS
 * packages it bundled by importing `node:module` at its top, and loading `node:module` costs Deno
 * about 35 ms (its Node layer is compiled on first use): every start paid it, `svc --version`
 * included, though only chunks loaded on use (the MCP SDK, prompts) ever call `__require`. The
 * helper is rewritten to take `createRequire` from `process.getBuiltinModule` at its first call.
 * When esbuild's output changes shape, the build fails here instead of silently slowing down.
 */
async function lazyRequire(dir: string): Promise<void> {
  const eager = 'import { createRequire as __deno_internal_createRequire } from "node:module";\n' +
    "var __require = __deno_internal_createRequire(import.meta.url);\n";
  const lazy = "var __deno_internal_require;\n" +
    "var __require = (id) => (__deno_internal_require ??= globalThis.process\n" +
    '  .getBuiltinModule("node:module").createRequire(import.meta.url))(id);\n';
  let rewritten = 0;
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const path = join(dir, entry.name);
    const text = await Deno.readTextFile(path);
    if (!text.includes('from "node:module"')) continue;
    if (!text.includes(eager) || /__require\s*\./.test(text)) {
      throw new Error(`${path} imports node:module in a way scripts/bundle.ts does not know`);
    }
    await Deno.writeTextFile(path, text.replace(eager, lazy));
    rewritten++;
  }
  if (rewritten > 1) throw new Error(`expected one esbuild helper chunk, rewrote ${rewritten}`);
}

/**
 * Writes the build's identity into `src/launch/build_id.ts`'s chunk: a hash of every file of the build.
 * An installed svc remembers validated config, manifests and tool schemas per build id
 * (src/launch/start_memo.ts), so a different build never reuses what another one remembered.
 */
async function writeBuildId(dir: string): Promise<void> {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of Deno.readDirSync(at)) {
      const path = join(at, entry.name);
      if (entry.isDirectory) walk(path);
      else if (entry.isFile) files.push(path);
    }
  };
  walk(dir);
  files.sort();
  const placeholder = "var BUILD_ID = null;";
  const holders = files.filter((f) =>
    f.endsWith(".js") && Deno.readTextFileSync(f).includes(placeholder)
  );
  if (holders.length !== 1) {
    throw new Error(`expected one chunk defining BUILD_ID as null, found ${holders.length}`);
  }
  const hash = new Uint8Array(
    await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(
        files.map((f) => `${relative(dir, f)}\0${Deno.readTextFileSync(f)}`).join("\0"),
      ),
    ),
  );
  const id = Array.from(hash.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
  const text = Deno.readTextFileSync(holders[0]);
  Deno.writeTextFileSync(holders[0], text.replace(placeholder, `var BUILD_ID = "${id}";`));
}
