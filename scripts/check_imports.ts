/**
 * Enforces the layer order of docs/architecture.md ("Layers") and the version pin. A file in
 * src/ may import only from its own layer or the layers below it; front-ends share a rank and
 * never import each other; files in src/ import no file in a cycle; plugins import only their own
 * files, src/plugin/api.ts and src/tool/; nothing in src/ imports plugins/; src/util/ is a leaf
 * (its files import only src/util/ files and `node:` built-ins, no npm package); front-ends and
 * the CLI reach src/engine/, src/session/ and src/catalog/ only through src/runtime/ (see
 * BEHIND_RUNTIME). Static, type-only, re-exporting and dynamic imports all count. zod is imported as a namespace
 * (`import * as z from "zod"`): the named `z` keeps all of zod's locales in the bundle. `node:path`
 * and `node:url` are taken from src/util/ (see NODE_REPLACED).
 */
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importSpecifiers } from "./import_specifiers.ts";

/** The layers from the bottom up; `main` is main.ts, and src/version.ts belongs to `shared`. */
export const LAYERS: readonly (readonly string[])[] = [
  ["shared"],
  ["util"],
  ["launch"],
  ["config"],
  ["policy"],
  ["sandbox"],
  ["tool"],
  ["provider"],
  ["session"],
  ["plugin"],
  ["catalog"],
  ["engine"],
  ["runtime"],
  ["http", "mcp", "repl", "jobs", "fleet", "eval", "acp"],
  ["cli"],
  ["main"],
];

/** `import { z } from "zod"` (also `import type { z }`), refused in favour of the namespace form. */
const NAMED_ZOD = /^import (type )?\{ z \} from "zod";/m;

/**
 * Node modules svc's code and plugins take from svc instead: the first `node:` import of a
 * process loads Deno's Node layer, 10-15 ms of every start (docs/performance.md).
 */
const NODE_REPLACED: Record<string, string> = {
  "node:path": "import from src/util/posix_path.ts (plugins: src/plugin/api.ts) instead, " +
    "which loads no Node layer at start",
  "node:url": "import from src/util/file_url.ts instead, which loads no Node layer at start",
};

/** The rule of src/util/: dependency-free helpers every layer can take without pulling in more. */
const LEAF = "src/util/ is a leaf: its files import only src/util/ files and node: built-ins; " +
  "move code that needs more into a layer folder";

const RANK = new Map(LAYERS.flatMap((names, rank) => names.map((name) => [name, rank])));

/**
 * Layers the layers above the runtime (front-ends, cli, main) reach only through src/runtime/,
 * types included: src/runtime/mod.ts re-exports what they use.
 */
const BEHIND_RUNTIME = new Set(["engine", "session", "catalog"]);
const RUNTIME_RANK = RANK.get("runtime")!;

/** Front-ends that still import BEHIND_RUNTIME layers directly (issue 32); this list only shrinks. */
const NOT_YET_THROUGH_RUNTIME = new Set<string>();
const CODE = /\.[cm]?[jt]sx?$/;

/** Every problem in the tree at `root`, in a stable order; an empty list means all is well. */
export async function checkTree(root: string): Promise<string[]> {
  const problems = await unknownLayers(root);
  const files = [
    ...await codeFiles(root, "src"),
    ...(await codeFiles(root, "plugins")).filter((file) => file.split("/")[2] !== "tests"),
    ...await codeFiles(root, "main.ts"),
  ];
  const texts = await Promise.all(files.map((file) => Deno.readTextFile(join(root, file))));
  const graph = new Map<string, string[]>();
  files.forEach((file, index) => {
    if (NAMED_ZOD.test(texts[index])) {
      problems.push(
        `${file} imports { z } from "zod": write import * as z from "zod" (bundle size)`,
      );
    }
    const targets = new Set<string>();
    const packages = new Set<string>();
    for (const specifier of importSpecifiers(texts[index])) {
      const instead = NODE_REPLACED[specifier];
      if (instead) problems.push(`${file} imports ${specifier}: ${instead}`);
      if (!specifier.startsWith("./") && !specifier.startsWith("../")) {
        const leafBreach = file.startsWith("src/util/") && !specifier.startsWith("node:");
        if (leafBreach && !packages.has(specifier)) {
          problems.push(`${file} imports ${specifier}: ${LEAF}`);
        }
        packages.add(specifier);
        continue;
      }
      const target = relative(root, resolve(root, dirname(file), specifier));
      if (targets.has(target)) continue;
      targets.add(target);
      const why = forbidden(file, target);
      if (why) problems.push(`${file} imports ${target}: ${why}`);
    }
    graph.set(file, [...targets]);
  });
  problems.push(...cycles(graph), ...await versionPin(root));
  return problems;
}

/** Why `file` may not import `target`, or undefined when it may. */
function forbidden(file: string, target: string): string | undefined {
  const [top, plugin] = file.split("/");
  if (top === "plugins") {
    const own = target.startsWith(`plugins/${plugin}/`);
    if (own || target === "src/plugin/api.ts" || target.startsWith("src/tool/")) return undefined;
    return "plugins import only their own files, src/plugin/api.ts and src/tool/";
  }
  if (file.startsWith("src/util/") && !target.startsWith("src/util/")) return LEAF;
  if (target.startsWith("plugins/")) {
    return "src/ never imports plugins/; svc loads plugins through src/plugin/";
  }
  if (!target.startsWith("src/")) return "src/ imports only from src/";
  const from = layerOf(file);
  const to = layerOf(target);
  const fromRank = RANK.get(from);
  const toRank = RANK.get(to);
  if (fromRank === undefined || toRank === undefined) return undefined; // reported once, as a folder
  if (toRank > fromRank) {
    return `${from} (rank ${fromRank}) may not import ${to} (rank ${toRank}); ` +
      "move the shared type to src/shared/";
  }
  if (toRank === fromRank && to !== from) {
    return `front-ends never import each other (${from} and ${to} share rank ${fromRank}); ` +
      "move the shared code down to src/runtime/ or below";
  }
  if (fromRank > RUNTIME_RANK && BEHIND_RUNTIME.has(to) && !NOT_YET_THROUGH_RUNTIME.has(from)) {
    return `${from} reaches ${to} only through src/runtime/: import it from ` +
      "src/runtime/mod.ts (add the re-export there) or move the logic into src/runtime/";
  }
  return undefined;
}

/** The layer a file belongs to: its folder under src/, `shared` for src/version.ts, `main`. */
function layerOf(file: string): string {
  if (file === "main.ts") return "main";
  if (file === "src/version.ts") return "shared";
  const parts = file.split("/");
  return parts.length > 2 ? parts[1] : file;
}

/** Folders and loose files under src/ that the layer order does not name. */
async function unknownLayers(root: string): Promise<string[]> {
  const problems: string[] = [];
  for (const entry of await sortedEntries(join(root, "src"))) {
    const path = `src/${entry.name}`;
    if (entry.isDirectory && !RANK.has(entry.name)) {
      problems.push(
        `${path} is not in the layer order; add it to LAYERS in scripts/check_imports.ts and ` +
          "docs/architecture.md",
      );
    } else if (entry.isFile && CODE.test(entry.name) && path !== "src/version.ts") {
      problems.push(`${path} is not in the layer order; move it into a layer folder under src/`);
    }
  }
  return problems;
}

/** The code files at or under `path` (relative to root), sorted, as paths relative to root. */
async function codeFiles(root: string, path: string): Promise<string[]> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(join(root, path));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  if (info.isFile) return CODE.test(path) ? [path] : [];
  const found: string[] = [];
  for (const entry of await sortedEntries(join(root, path))) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    if (entry.isDirectory) found.push(...await codeFiles(root, `${path}/${entry.name}`));
    else if (entry.isFile && CODE.test(entry.name)) found.push(`${path}/${entry.name}`);
  }
  return found;
}

async function sortedEntries(dir: string): Promise<Deno.DirEntry[]> {
  const entries = await Array.fromAsync(Deno.readDir(dir));
  return entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** One problem per knot of files in src/ that import each other, naming a cycle through it. */
function cycles(graph: Map<string, string[]>): string[] {
  const inSrc = (file: string) => file.startsWith("src/") && graph.has(file);
  const problems: string[] = [];
  for (const knot of stronglyConnected(graph, inSrc)) {
    const start = knot[0];
    if (knot.length === 1 && !graph.get(start)!.includes(start)) continue;
    const members = new Set(knot);
    const path = shortestCycle(start, (file) => graph.get(file)!.filter((t) => members.has(t)));
    const rest = knot.filter((file) => !path.includes(file));
    problems.push(
      `import cycle: ${[...path, start].join(" -> ")}` +
        (rest.length ? ` (the same knot also holds ${rest.join(", ")})` : "") +
        "; move what both sides need into one of them or a third file",
    );
  }
  return problems;
}

/** Tarjan's strongly connected components among the files `keep` accepts; each sorted. */
function stronglyConnected(
  graph: Map<string, string[]>,
  keep: (file: string) => boolean,
): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file)!.filter(keep)) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    components.push(component.sort());
  };
  for (const file of [...graph.keys()].filter(keep)) if (!index.has(file)) visit(file);
  return components.sort((a, b) => a[0] < b[0] ? -1 : 1);
}

/** The files of a shortest path from `start` back to itself, `start` first. */
function shortestCycle(start: string, next: (file: string) => string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (const file of queue) {
    for (const target of next(file)) {
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0])!);
        return path;
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start];
}

/** src/version.ts must hold deno.json's version. */
async function versionPin(root: string): Promise<string[]> {
  const denoJson = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const versionTs = await Deno.readTextFile(join(root, "src/version.ts"));
  if (versionTs.includes(`"${denoJson.version}"`)) return [];
  return [`src/version.ts does not hold deno.json's version ${denoJson.version}`];
}

if (import.meta.main) {
  const problems = await checkTree(fileURLToPath(new URL("..", import.meta.url)));
  if (problems.length) {
    console.error(problems.join("\n"));
    Deno.exit(1);
  }
  console.log("import directions ok");
}
