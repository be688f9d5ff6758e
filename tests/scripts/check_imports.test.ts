import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { checkTree } from "../../scripts/check_imports.ts";
import { importSpecifiers } from "../../scripts/import_specifiers.ts";

/** A temp project holding `files` plus a deno.json and src/version.ts that agree. */
async function tree(files: Record<string, string>): Promise<{ root: string } & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "svc_layers_" });
  const all = {
    "deno.json": '{ "version": "1.2.3" }\n',
    "src/version.ts": 'export const VERSION = "1.2.3";\n',
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return { root, [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }) };
}

const BACK = "move the shared type to src/shared/";

Deno.test("the import checker accepts a clean tree that only imports downwards", async () => {
  await using t = await tree({
    "main.ts": 'import { main } from "./src/cli/entry.ts";\n',
    "src/cli/entry.ts": 'import { serve } from "../http/serve.ts";\nexport const main = serve;\n',
    "src/http/serve.ts": 'import { VERSION } from "../version.ts";\nexport const serve = 1;\n',
    "src/engine/loop.ts":
      'import * as z from "zod";\nimport type { T } from "../shared/types.ts";\n' +
      'import "../util/ids.ts";\nimport { memo } from "../launch/memo.ts";\n',
    "src/launch/memo.ts": 'import "../util/ids.ts";\nexport const memo = 1;\n',
    "src/shared/types.ts": 'import { VERSION } from "../version.ts";\nexport type T = 1;\n',
    "src/util/ids.ts":
      'import { open } from "node:fs/promises";\nimport { join } from "./posix_path.ts";\n',
    "src/util/posix_path.ts": "export const join = 1;\n",
    "plugins/svc-core-x/mod.ts": 'import type { Tool } from "../../src/plugin/api.ts";\n' +
      'import { runShell } from "../../src/tool/shell.ts";\nimport "./src/own.ts";\n',
    "plugins/svc-core-x/src/own.ts": "export {};\n",
    "plugins/svc-core-x/tests/own.test.ts": 'import "../../../src/engine/loop.ts";\n',
  });
  assert.deepEqual(await checkTree(t.root), []);
});

Deno.test("the import checker refuses zod's named z export, which keeps every locale in the bundle", async () => {
  await using t = await tree({
    "src/config/a.ts": 'import { z } from "zod";\n',
    "src/config/b.ts": 'import type { z } from "zod";\n',
    "src/config/c.ts": 'import * as z from "zod";\nimport type * as y from "zod";\n',
  });
  const why = 'imports { z } from "zod": write import * as z from "zod" (bundle size)';
  assert.deepEqual(await checkTree(t.root), [`src/config/a.ts ${why}`, `src/config/b.ts ${why}`]);
});

Deno.test("the import checker refuses node:path and node:url in src/ and plugins/, which load Deno's Node layer at start", async () => {
  await using t = await tree({
    "src/util/a.ts": 'import { join } from "node:path";\n',
    "src/cli/b.ts": 'const { fileURLToPath } = await import("node:url");\n',
    "plugins/svc-core-x/mod.ts": 'export { dirname } from "node:path";\n',
    "plugins/svc-core-x/tests/own.test.ts": 'import { join } from "node:path";\n',
    "src/util/c.ts": 'import { createServer } from "node:http";\n',
  });
  assert.deepEqual(await checkTree(t.root), [
    "src/cli/b.ts imports node:url: import from src/util/file_url.ts instead, which loads no Node layer at start",
    "src/util/a.ts imports node:path: import from src/util/posix_path.ts (plugins: src/plugin/api.ts) instead, which loads no Node layer at start",
    "plugins/svc-core-x/mod.ts imports node:path: import from src/util/posix_path.ts (plugins: src/plugin/api.ts) instead, which loads no Node layer at start",
  ]);
});

Deno.test("the import checker keeps src/util/ a leaf: no other layer, no npm package", async () => {
  await using t = await tree({
    "src/util/a.ts": 'import { VERSION } from "../version.ts";\nimport "../shared/types.ts";\n' +
      'import "../launch/memo.ts";\nimport "../config/load.ts";\nimport "./b.ts";\n',
    "src/util/b.ts": 'import * as z from "zod";\nimport type { ZodType } from "zod";\n' +
      'import "npm:yaml@2";\nimport "jsr:@std/path";\nimport { open } from "node:fs/promises";\n',
    "src/shared/types.ts": "export type T = 1;\n",
    "src/launch/memo.ts": 'import "../util/b.ts";\n',
    "src/config/load.ts": "export {};\n",
  });
  const leaf = "src/util/ is a leaf: its files import only src/util/ files and node: built-ins; " +
    "move code that needs more into a layer folder";
  assert.deepEqual(await checkTree(t.root), [
    `src/util/a.ts imports src/version.ts: ${leaf}`,
    `src/util/a.ts imports src/shared/types.ts: ${leaf}`,
    `src/util/a.ts imports src/launch/memo.ts: ${leaf}`,
    `src/util/a.ts imports src/config/load.ts: ${leaf}`,
    `src/util/b.ts imports zod: ${leaf}`,
    `src/util/b.ts imports npm:yaml@2: ${leaf}`,
    `src/util/b.ts imports jsr:@std/path: ${leaf}`,
  ]);
});

Deno.test("the import checker accepts a tree without src/shared/", async () => {
  await using t = await tree({ "src/config/load.ts": 'import "../util/fs.ts";\n' });
  assert.deepEqual(await checkTree(t.root), []);
});

Deno.test("the import checker rejects a planted back-arrow from session to engine", async () => {
  await using t = await tree({
    "src/session/a.ts": 'import { b } from "../engine/b.ts";\nexport const a = b;\n',
    "src/engine/b.ts": "export const b = 1;\n",
  });
  assert.deepEqual(await checkTree(t.root), [
    `src/session/a.ts imports src/engine/b.ts: session (rank 8) may not import engine (rank 11); ${BACK}`,
  ]);
});

Deno.test("the import checker makes front-ends reach engine, session and catalog only through the runtime", async () => {
  await using t = await tree({
    "main.ts": 'import "./src/engine/engine.ts";\n',
    "src/cli/run.ts": 'import type { Engine } from "../engine/engine.ts";\n' +
      'import { Runtime } from "../runtime/mod.ts";\nimport "../tool/approval.ts";\n',
    "src/http/chat.ts": 'const naming = await import("../session/naming.ts");\n',
    "src/eval/trial.ts": 'export { loadCatalog } from "../catalog/load.ts";\n',
    "src/jobs/runner.ts": 'import { jobSessionName } from "../session/naming.ts";\n',
    "src/repl/repl.ts": 'import type { Engine } from "../engine/engine.ts";\n',
    "src/runtime/mod.ts": 'export type { Engine } from "../engine/engine.ts";\n' +
      'import "../session/naming.ts";\nimport "../catalog/load.ts";\n',
    "src/engine/engine.ts": 'import "../session/naming.ts";\n',
    "src/session/naming.ts": "export {};\n",
    "src/catalog/load.ts": "export {};\n",
    "src/tool/approval.ts": "export {};\n",
  });
  const why = (from: string, to: string) =>
    `${from} reaches ${to} only through src/runtime/: import it from src/runtime/mod.ts ` +
    "(add the re-export there) or move the logic into src/runtime/";
  assert.deepEqual(await checkTree(t.root), [
    `src/cli/run.ts imports src/engine/engine.ts: ${why("cli", "engine")}`,
    `src/eval/trial.ts imports src/catalog/load.ts: ${why("eval", "catalog")}`,
    `src/http/chat.ts imports src/session/naming.ts: ${why("http", "session")}`,
    `src/jobs/runner.ts imports src/session/naming.ts: ${why("jobs", "session")}`,
    `src/repl/repl.ts imports src/engine/engine.ts: ${why("repl", "engine")}`,
    `main.ts imports src/engine/engine.ts: ${why("main", "engine")}`,
  ]);
});

Deno.test("the import checker counts a type-only import as an arrow", async () => {
  await using t = await tree({
    "src/tool/registry.ts": 'import type { ToolSchema } from "../provider/types.ts";\n',
    "src/provider/types.ts": "export type ToolSchema = { name: string };\n",
  });
  assert.deepEqual(await checkTree(t.root), [
    `src/tool/registry.ts imports src/provider/types.ts: tool (rank 6) may not import provider (rank 7); ${BACK}`,
  ]);
});

Deno.test("the import checker counts a dynamic import split across lines", async () => {
  await using t = await tree({
    "src/config/trust.ts":
      'export const load = () =>\n  import(\n    "../policy/evaluate.ts"\n  );\n',
    "src/policy/evaluate.ts": "export const DEFAULT_ACTIONS = {};\n",
  });
  assert.deepEqual(await checkTree(t.root), [
    `src/config/trust.ts imports src/policy/evaluate.ts: config (rank 3) may not import policy (rank 4); ${BACK}`,
  ]);
});

Deno.test("the import checker catches every export-from form, multi-line ones included", async () => {
  await using t = await tree({
    "src/shared/mod.ts": 'export {\n  a,\n  b,\n} from\n  "../config/a.ts";\n' +
      'export type { T } from "../policy/t.ts";\nexport * from "../tool/c.ts";\n',
    "src/config/a.ts": "export const a = 1, b = 2;\n",
    "src/policy/t.ts": "export type T = 1;\n",
    "src/tool/c.ts": "export const c = 1;\n",
  });
  assert.deepEqual(await checkTree(t.root), [
    `src/shared/mod.ts imports src/config/a.ts: shared (rank 0) may not import config (rank 3); ${BACK}`,
    `src/shared/mod.ts imports src/policy/t.ts: shared (rank 0) may not import policy (rank 4); ${BACK}`,
    `src/shared/mod.ts imports src/tool/c.ts: shared (rank 0) may not import tool (rank 6); ${BACK}`,
  ]);
});

Deno.test("the import checker ignores import-like text in comments, strings and regex literals", async () => {
  await using t = await tree({
    "src/util/text.ts": [
      '// import { x } from "../engine/x.ts";',
      '/* export * from "../engine/x.ts"; */',
      '/** Lazy: `await import("../engine/x.ts")`. */',
      "const source = 'import { y } from \"../engine/y.ts\"';",
      'const template = `export { z } from "../engine/z.ts"`;',
      'const pattern = /from "..\\/engine\\/w.ts"/;',
      "export const all = [source, template, pattern, 4 / 2];",
    ].join("\n"),
  });
  assert.deepEqual(await checkTree(t.root), []);
});

Deno.test("the import checker reports each import cycle once with its files", async () => {
  await using t = await tree({
    "src/cli/run_cmd.ts": 'export const run = () => import("./run_action.ts");\n',
    "src/cli/run_action.ts": 'import type { RunFlags } from "./run_cmd.ts";\n',
    "src/util/a.ts": 'import "./b.ts";\n',
    "src/util/b.ts": 'import "./c.ts";\n',
    "src/util/c.ts": 'import "./a.ts";\nimport "./a.ts";\n',
  });
  const fix = "move what both sides need into one of them or a third file";
  assert.deepEqual(await checkTree(t.root), [
    `import cycle: src/cli/run_action.ts -> src/cli/run_cmd.ts -> src/cli/run_action.ts; ${fix}`,
    `import cycle: src/util/a.ts -> src/util/b.ts -> src/util/c.ts -> src/util/a.ts; ${fix}`,
  ]);
});

Deno.test("the import checker rejects a folder or file under src/ that is not in the layer order", async () => {
  await using t = await tree({
    "src/foo/x.ts": 'import "../engine/e.ts";\n',
    "src/engine/e.ts": 'import "../foo/y.ts";\n',
    "src/foo/y.ts": "export {};\n",
    "src/helpers.ts": "export {};\n",
  });
  assert.deepEqual(await checkTree(t.root), [
    "src/foo is not in the layer order; add it to LAYERS in scripts/check_imports.ts and " +
    "docs/architecture.md",
    "src/helpers.ts is not in the layer order; move it into a layer folder under src/",
  ]);
});

Deno.test("the import checker keeps plugins to their own files, src/plugin/api.ts and src/tool/", async () => {
  await using t = await tree({
    "plugins/svc-core-x/src/tool.ts": 'import { run } from "../../../src/engine/loop.ts";\n' +
      'import "../../svc-core-y/mod.ts";\nimport "../../../src/plugin/load.ts";\n' +
      'import "../../../src/tool/shell.ts";\n',
    "plugins/svc-core-x/tests/tool.test.ts": 'import "../../../src/engine/loop.ts";\n',
  });
  const rule = "plugins import only their own files, src/plugin/api.ts and src/tool/";
  assert.deepEqual(await checkTree(t.root), [
    `plugins/svc-core-x/src/tool.ts imports src/engine/loop.ts: ${rule}`,
    `plugins/svc-core-x/src/tool.ts imports plugins/svc-core-y/mod.ts: ${rule}`,
    `plugins/svc-core-x/src/tool.ts imports src/plugin/load.ts: ${rule}`,
  ]);
});

Deno.test("the import checker rejects src/ importing plugins/ or files outside src/", async () => {
  await using t = await tree({
    "src/plugin/load.ts": 'import "../../plugins/svc-core-x/mod.ts";\n' +
      'import "../../tests/_support/engine.ts";\n',
  });
  assert.deepEqual(await checkTree(t.root), [
    "src/plugin/load.ts imports plugins/svc-core-x/mod.ts: src/ never imports plugins/; svc " +
    "loads plugins through src/plugin/",
    "src/plugin/load.ts imports tests/_support/engine.ts: src/ imports only from src/",
  ]);
});

Deno.test("the import checker keeps front-ends apart and below cli", async () => {
  await using t = await tree({
    "src/http/handler.ts": 'import "../mcp/server.ts";\nimport "../cli/program.ts";\n',
  });
  assert.deepEqual(await checkTree(t.root), [
    "src/http/handler.ts imports src/mcp/server.ts: front-ends never import each other (http " +
    "and mcp share rank 13); move the shared code down to src/runtime/ or below",
    `src/http/handler.ts imports src/cli/program.ts: http (rank 13) may not import cli (rank 14); ${BACK}`,
  ]);
});

Deno.test("the import checker reports a version.ts that does not hold deno.json's version", async () => {
  await using t = await tree({ "src/version.ts": 'export const VERSION = "1.2.2";\n' });
  assert.deepEqual(await checkTree(t.root), [
    "src/version.ts does not hold deno.json's version 1.2.3",
  ]);
});

Deno.test("importSpecifiers finds every import form in source order", () => {
  const source = [
    "#!/usr/bin/env -S deno run",
    'import a, { b } from "./a.ts";',
    'import type { T } from "../t.ts";',
    "export { x } from '../y.ts';",
    'export * as ns from "./ns.ts";',
    'import "./side.ts";',
    'import {\n  m,\n} from\n  "./multi.ts";',
    'const lazy = await import(\n  "./lazy.ts"\n);',
    'type Q = typeof import("./q.ts");',
    "const t = import(`./template.ts`);",
    "const u = import(`./${name}.ts`);",
    'const e = `a ${ {k: "from"}.k } ${`b ${1}`}` + import("./after_template.ts");',
    'const r = /["\']/.test(s) ? 1 / 2 : import("./after_regex.ts");',
    'const h = Array.from("abc");',
  ].join("\n");
  assert.deepEqual(importSpecifiers(source), [
    "./a.ts",
    "../t.ts",
    "../y.ts",
    "./ns.ts",
    "./side.ts",
    "./multi.ts",
    "./lazy.ts",
    "./q.ts",
    "./template.ts",
    "./after_template.ts",
    "./after_regex.ts",
  ]);
});
