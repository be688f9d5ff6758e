import assert from "node:assert/strict";
import { changesProcessState, slowFirst } from "../../scripts/test_files.ts";

/** A reader over an in-memory tree of modules. */
function tree(files: Record<string, string>) {
  return (path: string) => files[path] ?? null;
}

Deno.test("a test file that sets the environment, changes folder or umask runs alone", () => {
  const read = tree({
    "tests/a.test.ts": 'Deno.env.set("HOME", home);',
    "tests/b.test.ts": "Deno.chdir(dir);",
    "tests/c.test.ts": "Deno.umask(0o077);",
    "tests/d.test.ts": 'Deno.env.delete("PATH");',
    "tests/e.test.ts": 'const home = Deno.env.get("HOME"); Deno.test("x", () => {});',
  });
  const alone = ["a", "b", "c", "d", "e"].filter((n) =>
    changesProcessState(`tests/${n}.test.ts`, read)
  );
  assert.deepEqual(alone, ["a", "b", "c", "d"]);
});

Deno.test("a test file runs alone when a helper it imports by a relative path changes process state, however deep", () => {
  const read = tree({
    "tests/jobs/daemon.test.ts": 'import { world } from "./_world.ts";\nDeno.test("x", () => {});',
    "tests/jobs/_world.ts": 'export { home } from "../_support/home.ts";',
    "tests/_support/home.ts": 'export function home() { Deno.env.set("HOME", "/tmp/h"); }',
    "tests/jobs/states.test.ts": 'import { job } from "./_job.ts";',
    "tests/jobs/_job.ts": 'import { a } from "./_cycle.ts";',
    "tests/jobs/_cycle.ts": 'import { b } from "./_job.ts";',
    // svc's own code is not searched: it never changes these for a test.
    "tests/cli/run.test.ts": 'import { main } from "../../src/cli/entry.ts";',
    "src/cli/entry.ts": 'Deno.env.delete("SVC_LAUNCHER");',
  });
  assert.equal(changesProcessState("tests/jobs/daemon.test.ts", read), true);
  assert.equal(changesProcessState("tests/jobs/states.test.ts", read), false);
  assert.equal(changesProcessState("tests/cli/run.test.ts", read), false);
});

Deno.test("the known slow test files start first, longest first, and the others keep their order", () => {
  const files = [
    "plugins/a.test.ts",
    "tests/cli/run.test.ts",
    "tests/b.test.ts",
    "tests/cli/installed_build.test.ts",
  ];
  assert.deepEqual(slowFirst(files), [
    "tests/cli/installed_build.test.ts",
    "tests/cli/run.test.ts",
    "plugins/a.test.ts",
    "tests/b.test.ts",
  ]);
});
