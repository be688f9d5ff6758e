import assert from "node:assert/strict";
import { posix } from "node:path";
import * as ours from "../../src/util/posix_path.ts";

/** Every path of up to four parts drawn from names that exercise the edge cases. */
function paths(): string[] {
  const parts = ["", ".", "..", "...", "a", "b.c", ".d", "e.", "..f", "a b", "%", "/", "//"];
  const out = new Set<string>(["", "/", "//", "///"]);
  const grow = (prefix: string, depth: number) => {
    if (depth === 0) return;
    for (const part of parts) {
      for (const glue of ["", "/"]) {
        const path = prefix + glue + part;
        out.add(path);
        out.add(`/${path}`);
        out.add(`${path}/`);
        grow(path, depth - 1);
      }
    }
  };
  grow("", 3);
  return [...out];
}

const all = paths();

Deno.test("the path functions give node:path's results on every path of up to three parts", () => {
  assert.ok(all.length > 10_000, `${all.length} paths`);
  const differ: string[] = [];
  const check = (what: string, got: unknown, want: unknown) => {
    if (got !== want && differ.length < 20) differ.push(`${what}: ${got} != ${want}`);
  };
  for (const p of all) {
    check(`normalize(${JSON.stringify(p)})`, ours.normalize(p), posix.normalize(p));
    check(`dirname(${JSON.stringify(p)})`, ours.dirname(p), posix.dirname(p));
    check(`basename(${JSON.stringify(p)})`, ours.basename(p), posix.basename(p));
    check(`extname(${JSON.stringify(p)})`, ours.extname(p), posix.extname(p));
    check(`isAbsolute(${JSON.stringify(p)})`, ours.isAbsolute(p), posix.isAbsolute(p));
    check(`resolve(${JSON.stringify(p)})`, ours.resolve(p), posix.resolve(p));
  }
  assert.deepEqual(differ, []);
});

Deno.test("join, resolve and relative give node:path's results on pairs and triples of paths", () => {
  const some = all.filter((_, i) => i % 211 === 0);
  const differ: string[] = [];
  const check = (what: string, got: unknown, want: unknown) => {
    if (got !== want && differ.length < 20) differ.push(`${what}: ${got} != ${want}`);
  };
  for (const a of some) {
    for (const b of some) {
      const args = JSON.stringify([a, b]);
      check(`join${args}`, ours.join(a, b), posix.join(a, b));
      check(`resolve${args}`, ours.resolve(a, b), posix.resolve(a, b));
      check(`relative${args}`, ours.relative(a, b), posix.relative(a, b));
      check(`join3${args}`, ours.join(a, "x", b), posix.join(a, "x", b));
      check(`resolve3${args}`, ours.resolve("/r", a, b), posix.resolve("/r", a, b));
    }
  }
  check("join()", ours.join(), posix.join());
  check("resolve()", ours.resolve(), posix.resolve());
  assert.equal(ours.sep, posix.sep);
  assert.deepEqual(differ, []);
});
