/**
 * The bundle's rewrite of commander's chunk (scripts/bundle.ts). commander imports `node:fs`,
 * `node:child_process`, `node:process`, `node:path` and `node:util` at its top for executable
 * subcommands (which svc has none of) and for printing, and its Command class extends
 * `node:events`' EventEmitter. The first `node:` import of a process loads Deno's Node layer,
 * 10-50 ms by module (docs/performance.md); measured on the installed build, the rewrite takes
 * `svc config get model` from about 110 to 70 ms and a one-word `svc run` from 120 to 94 ms
 * (`--version` never loads commander; `--help` loads the Node layer to print either way). In the
 * bundle the four default imports become objects that load the module at their first use,
 * `stripVTControlCharacters` a function that does, and EventEmitter comes from the `events` package
 * (src/cli/commander_events.ts), so a command that never prints help or an error through commander
 * loads no Node module. The rewrite is exact: any import it does not find as expected, any `node:`
 * import left over, or commander in other than one chunk fails the build, so a new commander or
 * esbuild cannot silently bring the cost back or break the program. tests/cli/bundle.test.ts checks
 * at run time that a command loads none of these modules and that help still prints.
 */
import { join } from "node:path";

/** commander's default imports of Node modules, and the name each is bound to in its chunk. */
const DEFAULT_IMPORTS: Record<string, string> = {
  "node:fs": "fs",
  "node:child_process": "childProcess",
  "node:process": "process",
  "node:path": "path",
};

/** Marks the bundle's commander chunk (esbuild names each module's source path in a comment). */
export const COMMANDER_MARKER = "// node_modules/.deno/commander@";

/** The stand-in for a default import: a proxy that loads the module at its first use. */
export const LAZY_BUILTIN_HELPER = "const __svc_lazy_builtin = (id) => {\n" +
  "  let real;\n" +
  '  const load = () => (real ??= id === "node:process"\n' +
  "    ? globalThis.process\n" +
  "    : globalThis.process.getBuiltinModule(id));\n" +
  "  return new Proxy({}, {\n" +
  "    get: (_, key) => Reflect.get(load(), key),\n" +
  "    set: (_, key, value) => Reflect.set(load(), key, value),\n" +
  "    has: (_, key) => Reflect.has(load(), key),\n" +
  "  });\n" +
  "};\n";

/**
 * Rewrites the text of commander's chunk (`path` names it in errors); throws when any expected
 * import is missing or a `node:` import is left.
 */
export function patchCommanderChunk(text: string, path: string): string {
  const changed = (what: string) =>
    new Error(`${path}: ${what}; commander's output changed, update scripts/bundle_commander.ts`);
  for (const [id, name] of Object.entries(DEFAULT_IMPORTS)) {
    const line = `import ${name} from "${id}";\n`;
    if (text.split(line).length !== 2) throw changed(`"${line.trim()}" not found once`);
    text = text.replace(line, `const ${name} = __svc_lazy_builtin("${id}");\n`);
  }
  // Help and error output strip colours with node:util's function (node:util: about 12 ms).
  const strip = /^import \{ stripVTControlCharacters(?: as (\w+))? \} from "node:util";$/gm;
  let strips = 0;
  text = text.replace(strip, (_, alias: string | undefined) => {
    strips++;
    return `const ${alias ?? "stripVTControlCharacters"} = (text) =>\n` +
      '  globalThis.process.getBuiltinModule("node:util").stripVTControlCharacters(text);';
  });
  if (strips === 0 || /from "node:util"/.test(text)) throw changed("its node:util imports differ");
  // Command extends EventEmitter: take it from the `events` package (src/cli/commander_events.ts).
  const events = 'import { EventEmitter } from "node:events";\n';
  if (text.split(events).length !== 2) throw changed("its node:events import differs");
  text = text.replace(events, 'import { EventEmitter } from "./src/cli/commander_events.js";\n');
  const left = text.match(/^.*(?:from\s*|import\s*\(?\s*|require\s*\(\s*)["']node:[\w/]+["'].*$/m);
  if (left) throw changed(`it still loads a node: module (${left[0].trim()})`);
  const firstImport = text.search(/^import /m);
  if (firstImport === -1) throw changed("no import statement left to put the helper before");
  return text.slice(0, firstImport) + LAZY_BUILTIN_HELPER + text.slice(firstImport);
}

/** Rewrites the one chunk of the build in `dir` that holds commander; throws unless exactly one. */
export async function lazyCommanderBuiltins(dir: string): Promise<void> {
  let rewritten = 0;
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const path = join(dir, entry.name);
    const text = await Deno.readTextFile(path);
    if (!text.includes(COMMANDER_MARKER)) continue;
    await Deno.writeTextFile(path, patchCommanderChunk(text, path));
    rewritten++;
  }
  if (rewritten !== 1) throw new Error(`expected commander in one chunk, found it in ${rewritten}`);
}
