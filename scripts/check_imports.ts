/**
 * Enforces DESIGN.md's import directions and the version pin:
 * cli -> front-ends -> engine -> {provider, tool, policy, session, catalog} -> util.
 * Nothing imports cli; the engine and lower layers never import a front-end; front-ends never
 * import each other; plugins import only src/plugin/api.ts and src/tool/.
 */
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const FRONT = ["repl", "http", "mcp", "jobs", "fleet", "eval"];
const LOWER = [
  "engine",
  "provider",
  "tool",
  "policy",
  "session",
  "catalog",
  "config",
  "util",
  "plugin",
];
const problems: string[] = [];

async function* files(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== "node_modules" && !entry.name.startsWith(".")) {
      yield* files(path);
    } else if (entry.isFile && path.endsWith(".ts")) yield path;
  }
}

function layer(path: string): string {
  const rel = relative(root, path).split("/");
  if (rel[0] === "plugins") return `plugin:${rel[1]}`;
  if (rel[0] === "src") return rel.length > 2 ? rel[1] : "src";
  return rel[0];
}

for (const top of ["src", "plugins"]) {
  for await (const file of files(join(root, top))) {
    if (file.includes("/tests/")) continue;
    const from = layer(file);
    const text = await Deno.readTextFile(file);
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)) {
      const target = resolve(dirname(file), match[1]);
      const to = layer(target);
      const rel = relative(root, target);
      const say = (why: string) => problems.push(`${relative(root, file)} imports ${rel}: ${why}`);
      if (to === from) continue;
      if (to === "cli") say("nothing imports src/cli");
      else if (from.startsWith("plugin:")) {
        if (!(rel === "src/plugin/api.ts" || rel.startsWith("src/tool/"))) {
          say("plugins import only src/plugin/api.ts and src/tool/");
        }
      } else if (LOWER.includes(from) && FRONT.includes(to)) {
        say("lower layers never import a front-end");
      } else if (FRONT.includes(from) && FRONT.includes(to)) {
        say("front-ends never import each other");
      } else if (to.startsWith("plugin:") && !from.startsWith("plugin:")) {
        say("src never imports a plugin");
      }
    }
  }
}

const denoJson = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
const versionTs = await Deno.readTextFile(join(root, "src/version.ts"));
if (!versionTs.includes(`"${denoJson.version}"`)) {
  problems.push(`src/version.ts does not hold deno.json's version ${denoJson.version}`);
}

if (problems.length) {
  console.error(problems.join("\n"));
  Deno.exit(1);
}
console.log("import directions ok");
