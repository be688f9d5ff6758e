import assert from "node:assert/strict";
import {
  COMMANDER_MARKER,
  LAZY_BUILTIN_HELPER,
  lazyCommanderBuiltins,
  patchCommanderChunk,
} from "../../scripts/bundle_commander.ts";

/** The imports esbuild writes for commander 15 in a code-split build, around its code. */
const IMPORTS = [
  'import { EventEmitter } from "node:events";',
  'import childProcess from "node:child_process";',
  'import path from "node:path";',
  'import fs from "node:fs";',
  'import process from "node:process";',
  'import { stripVTControlCharacters as stripVTControlCharacters2 } from "node:util";',
  'import { stripVTControlCharacters } from "node:util";',
];

function chunk(imports = IMPORTS): string {
  return [
    'import { __export } from "./chunk-AAAA.js";',
    `${COMMANDER_MARKER}15.1.0/node_modules/commander/lib/command.js`,
    ...imports,
    "var Command = class extends EventEmitter {};",
    "export { Command };",
    "",
  ].join("\n");
}

Deno.test("patchCommanderChunk replaces every node: import of commander's chunk", () => {
  const out = patchCommanderChunk(chunk(), "program.js");
  assert.doesNotMatch(out, /from "node:/);
  assert.ok(out.includes(LAZY_BUILTIN_HELPER));
  assert.ok(out.indexOf(LAZY_BUILTIN_HELPER) < out.indexOf("import { __export }"));
  for (const [name, id] of [["childProcess", "child_process"], ["path", "path"], ["fs", "fs"]]) {
    assert.ok(out.includes(`const ${name} = __svc_lazy_builtin("node:${id}");`), name);
  }
  assert.match(out, /const stripVTControlCharacters2 = \(text\) =>/);
  assert.ok(out.includes('import { EventEmitter } from "./src/cli/commander_events.js";'));
});

Deno.test("patchCommanderChunk fails the build when commander's imports change shape", () => {
  const cases: Array<[string, string[]]> = [
    ["a namespace import", IMPORTS.map((l) => l.replace("import fs from", "import * as fs from"))],
    ["a new node module", [...IMPORTS, 'import os from "node:os";']],
    ["a side-effect import", [...IMPORTS, 'import "node:tty";']],
    ["a require", [...IMPORTS, 'var tty = __require("node:tty");']],
    ["no EventEmitter import", IMPORTS.filter((l) => !l.includes("node:events"))],
    ["no stripVTControlCharacters", IMPORTS.filter((l) => !l.includes("node:util"))],
    ["another node:util import", [...IMPORTS, 'import { inspect } from "node:util";']],
    ["an import twice", [...IMPORTS, 'import path from "node:path";']],
  ];
  for (const [what, imports] of cases) {
    assert.throws(
      () => patchCommanderChunk(chunk(imports), "program.js"),
      /program\.js: .*commander's output changed, update scripts\/bundle_commander\.ts/,
      what,
    );
  }
});

Deno.test("lazyCommanderBuiltins rewrites exactly one chunk and refuses none or two", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/main.js`, 'import "./program.js";\n');
    await assert.rejects(
      lazyCommanderBuiltins(dir),
      /expected commander in one chunk, found it in 0/,
    );
    await Deno.writeTextFile(`${dir}/program.js`, chunk());
    await lazyCommanderBuiltins(dir);
    assert.doesNotMatch(await Deno.readTextFile(`${dir}/program.js`), /from "node:/);
    await Deno.writeTextFile(`${dir}/program.js`, chunk());
    await Deno.writeTextFile(`${dir}/other.js`, chunk());
    await assert.rejects(lazyCommanderBuiltins(dir), /found it in 2/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
