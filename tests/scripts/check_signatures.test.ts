import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { checkSignatures } from "../../scripts/check_signatures.ts";
import rules from "../../scripts/signature_rules.ts";

/** The messages the rules report for `source`. */
function report(source: string): string[] {
  return Deno.lint.runPlugin(rules, "fixture.ts", source).map((d) => d.message);
}

/** A function named `name` whose body holds `lines` lines in all. */
function longFunction(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`);
  return `function ${name}() {\n${body.join("\n")}\n}\n`;
}

const TOO_MANY = "takes 3 positional parameters: take at most 2, then an options object";

Deno.test("the signature rules refuse an exported function with three positional parameters", () => {
  assert.deepEqual(report("export function f(a: string, b: number, c: boolean) {}\n"), [
    `f ${TOO_MANY}`,
  ]);
  assert.deepEqual(report("export const g = (a: string, b: number, c: boolean) => a;\n"), [
    `g ${TOO_MANY}`,
  ]);
  assert.deepEqual(report("export default function h(a: 1, b: 2, c: 3, d?: 4) {}\n"), [
    "h takes 4 positional parameters: take at most 2, then an options object",
  ]);
});

Deno.test("the signature rules accept two positionals then an options object", () => {
  const accepted = [
    "export function a(x: string, y: number, options: { z: boolean }) {}",
    "export function b(x: string, y: number, { z }: { z: boolean }) {}",
    "export function c(x: string, y: number, { z = 1 }: { z?: number } = {}) {}",
    "export function d(x: string, y: number, opts: ReadOptions) {}",
    "export function e(x: string, y: number, z?: boolean) {}",
    "export function f(x: string, y = 2, z = 3) {}",
    "export function g(x: string, ...rest: string[]) {}",
    "function internal(a: 1, b: 2, c: 3, d: 4) {}",
    "export function outer() {\n  const inner = (a: 1, b: 2, c: 3) => a;\n  return inner;\n}",
    "export class K {\n  method(a: 1, b: 2, c: 3) {}\n}",
  ];
  for (const source of accepted) assert.deepEqual(report(`${source}\n`), [], source);
});

Deno.test("the signature rules refuse a function over 80 lines unless it says why it is one piece", () => {
  assert.deepEqual(report(longFunction("fits", 80)), []);
  assert.deepEqual(report(longFunction("long", 81)), [
    'long is 81 lines: split it into named steps, or say why it is one piece in a "// One piece: <why>" comment',
  ]);
  const why = "// One piece: a state machine whose states share locals.\n";
  assert.deepEqual(report(`/** Doc. */\n${why}${longFunction("above", 90)}`), []);
  assert.deepEqual(report(`${why}\n${longFunction("apart", 90)}`).length, 1);
  const inside = longFunction("inside", 90).replace("{\n", `{\n  ${why}`);
  assert.deepEqual(report(inside), []);
  const method = `class K {\n  ${longFunction("m", 85).replace("function ", "")}}\n`;
  assert.deepEqual(report(method).map((m) => m.split(":")[0]), ["m is 85 lines"]);
});

Deno.test("the signature check names file and line across src/, main.ts and plugins, tests aside, and a code file over 450 lines", async () => {
  const root = await Deno.makeTempDir({ prefix: "svc_signatures_test_" });
  try {
    const files: Record<string, string> = {
      "main.ts": "export function main(a: 1, b: 2, c: 3) {}\n",
      "src/x/ok.ts": "export function ok(a: 1, b: 2, options: { c: 3 }) {}\n",
      "src/x/long.ts": `// header\n${longFunction("long", 81)}`,
      "plugins/p/src/tool.ts": "\nexport function tool(a: 1, b: 2, c: 3) {}\n",
      "plugins/p/tests/tool.test.ts": "export function helper(a: 1, b: 2, c: 3) {}\n",
      // A code file over 450 lines is one finding; a test file of that size is not looked at.
      "src/x/big.ts": "export const a = 1;\n".repeat(451),
      "src/x/fits.ts": "export const a = 1;\n".repeat(450),
      "plugins/p/tests/big.test.ts": "export const a = 1;\n".repeat(451),
    };
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(dirname(join(root, path)), { recursive: true });
      await Deno.writeTextFile(join(root, path), text);
    }
    assert.deepEqual((await checkSignatures(root)).map((p) => p.split(" ")[0]), [
      "main.ts:1:",
      "plugins/p/src/tool.ts:2:",
      "src/x/big.ts:1:",
      "src/x/long.ts:2:",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
