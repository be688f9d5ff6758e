import assert from "node:assert/strict";
import { devCommand, resolvePython, shellQuote } from "../src/detect.ts";
import { tempWorktree } from "../../svc-core-exec/tests/_ctx.ts";

const python = (() => {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/python3`).isFile) return `${dir}/python3`;
    } catch {
      // keep looking
    }
  }
  return null;
})();

/** Runs `body` with PATH set to `dir` alone. */
function withPath<T>(dir: string, body: () => T): T {
  const saved = Deno.env.get("PATH") ?? "";
  Deno.env.set("PATH", dir);
  try {
    return body();
  } finally {
    Deno.env.set("PATH", saved);
  }
}

const checked = (dir: string, config?: Record<string, string>, target?: string) =>
  (["test", "lint", "format"] as const).map((kind) => {
    const picked = devCommand(kind, dir, { config, target });
    return "error" in picked ? picked.error : picked.checked;
  });

Deno.test("dev tools use deno test, lint and fmt in a deno.json project", () => {
  using wt = tempWorktree();
  Deno.writeTextFileSync(`${wt.dir}/deno.jsonc`, "{}");
  assert.deepEqual(checked(wt.dir), ["deno test", "deno lint", "deno fmt"]);
  assert.deepEqual(checked(wt.dir, {}, "src/a b.ts"), [
    "deno test 'src/a b.ts'",
    "deno lint 'src/a b.ts'",
    "deno fmt 'src/a b.ts'",
  ]);
});

Deno.test("dev tools use only the npm scripts that exist", () => {
  using wt = tempWorktree();
  Deno.writeTextFileSync(
    `${wt.dir}/package.json`,
    JSON.stringify({ scripts: { test: "x", lint: "y" } }),
  );
  assert.deepEqual(checked(wt.dir), [
    "npm test",
    "npm run lint",
    'package.json has no "format" script; add one or set dev.format_cmd',
  ]);
  assert.deepEqual(checked(wt.dir, {}, "t1").slice(0, 2), [
    "npm test -- 't1'",
    "npm run lint -- 't1'",
  ]);
});

Deno.test("dev tools pick unittest, a linter and a formatter in a Python project", () => {
  using wt = tempWorktree();
  using bin = tempWorktree();
  Deno.writeTextFileSync(`${wt.dir}/app.py`, "x = 1\n");
  Deno.mkdirSync(`${wt.dir}/tests`);
  const empty = withPath(bin.dir, () => [checked(wt.dir), checked(wt.dir, {}, "tests")]);
  Deno.writeTextFileSync(`${bin.dir}/ruff`, "#!/bin/sh\n", { mode: 0o755 });
  const ruff = withPath(bin.dir, () => checked(wt.dir, {}, "app.py"));
  assert.deepEqual(empty, [
    [
      "python3 -m unittest discover",
      "python3 -m compileall -q .",
      "No Python formatter found: install ruff or black, or set dev.format_cmd",
    ],
    [
      "python3 -m unittest discover -s 'tests'",
      "python3 -m compileall -q 'tests'",
      "No Python formatter found: install ruff or black, or set dev.format_cmd",
    ],
  ]);
  assert.deepEqual(ruff, [
    "python3 -m unittest 'app.py'",
    "ruff check 'app.py'",
    "ruff format 'app.py'",
  ]);
});

Deno.test("dev tools prefer the configured commands and append the target quoted", () => {
  using wt = tempWorktree();
  Deno.writeTextFileSync(`${wt.dir}/deno.json`, "{}");
  const config = { "dev.test_cmd": "make test", "dev.lint_cmd": " ", "dev.format_cmd": "fmt.sh" };
  assert.deepEqual(checked(wt.dir, config, "it's"), [
    "make test 'it'\\''s'",
    "deno lint 'it'\\''s'",
    "fmt.sh 'it'\\''s'",
  ]);
});

Deno.test("dev tools refuse an option as target and explain a missing project", () => {
  using wt = tempWorktree();
  assert.deepEqual(checked(wt.dir, {}, "--allow-all"), [
    "Target must be a path or test name, not an option",
    "Target must be a path or test name, not an option",
    "Target must be a path or test name, not an option",
  ]);
  assert.deepEqual(
    checked(wt.dir)[0],
    "No test command: set dev.test_cmd, or add deno.json, package.json or a Python project",
  );
});

Deno.test("a leading python or python3 resolves to the interpreter on PATH", () => {
  if (!python) return;
  assert.deepEqual(
    [
      resolvePython("python -m pytest -q"),
      resolvePython("python3 -m unittest discover"),
      resolvePython("pythonista x"),
      resolvePython("make test"),
    ],
    [
      `${shellQuote(python)} -m pytest -q`,
      `${shellQuote(python)} -m unittest discover`,
      "pythonista x",
      "make test",
    ],
  );
});
