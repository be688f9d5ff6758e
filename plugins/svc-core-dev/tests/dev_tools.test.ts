import assert from "node:assert/strict";
import { register_tools } from "../mod.ts";
import { devTool } from "../src/dev_tools.ts";
import { isAlive, makeContext, tempWorktree, text } from "../../svc-core-exec/tests/_ctx.ts";
import { needs } from "../../../tests/_support/tools.ts";
import { toolContext } from "../../../src/tool/context.ts";
import { ConfigSchema } from "../../../src/config/schema.ts";

const TEST_OK = "import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n" +
  "        self.assertEqual(1, 1)\n";

Deno.test(
  "code_test runs unittest discovery in a Python project (needs python3)",
  needs("python3"),
  async () => {
    using wt = tempWorktree();
    Deno.writeTextFileSync(`${wt.dir}/test_one.py`, TEST_OK);
    const result = await devTool("test").run({}, makeContext(wt.dir));
    assert.match(
      text(result),
      /^\$ python3 -m unittest discover\nexit code 0\nstderr:\n.*Ran 1 test.*\nOK$/s,
    );
  },
);

Deno.test(
  "code_test reports a failing suite with its exit code (needs python3)",
  needs("python3"),
  async () => {
    using wt = tempWorktree();
    Deno.writeTextFileSync(`${wt.dir}/test_one.py`, TEST_OK.replace("(1, 1)", "(1, 2)"));
    const result = text(await devTool("test").run({ target: "test_one.py" }, makeContext(wt.dir)));
    assert.match(
      result,
      /^\$ python3 -m unittest 'test_one\.py'\nexit code 1\n.*FAILED \(failures=1\)$/s,
    );
  },
);

Deno.test(
  "code_lint flags a syntax error with the compileall fallback or a linter (needs python3)",
  needs("python3"),
  async () => {
    using wt = tempWorktree();
    Deno.writeTextFileSync(`${wt.dir}/bad.py`, "def f(:\n");
    const result = await devTool("lint").run({}, makeContext(wt.dir));
    assert.match(text(result), /\nexit code [1-9]/);
  },
);

Deno.test("code_test runs the npm test script (needs npm)", needs("npm"), async () => {
  using wt = tempWorktree();
  Deno.writeTextFileSync(
    `${wt.dir}/package.json`,
    JSON.stringify({ scripts: { test: "echo npm-ok" } }),
  );
  const result = text(await devTool("test").run({}, makeContext(wt.dir)));
  assert.match(result, /^\$ npm test\nexit code 0\nstdout:\n[^]*npm-ok/);
});

Deno.test("code_test denies a command outside bash_allow in the resolver and at run time", async () => {
  using wt = tempWorktree();
  Deno.writeTextFileSync(`${wt.dir}/deno.json`, "{}");
  const resolve = (kind: "test" | "lint", bash_allow: string[]) =>
    devTool(kind).resolvePolicy!({ _permissions: { bash_allow } }, wt.dir);
  assert.deepEqual(
    [resolve("test", ["deno test"]), resolve("lint", ["deno test"]), resolve("lint", [])],
    [undefined, { action: "deny", reason: "not in bash_allow: deno lint" }, undefined],
  );
  const config = {
    "dev.test_cmd": "make test && rm -rf x",
    tool_permission: { bash_allow: ["make test"] },
  };
  assert.deepEqual(await devTool("test").run({}, makeContext(wt.dir, { config })), {
    content: "bash_allow does not permit make test && rm -rf x: not in bash_allow: rm -rf x",
    ok: false,
  });
});

Deno.test("code_test kills the whole process group when cancelled", async () => {
  using wt = tempWorktree();
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 300);
  const ctx = makeContext(wt.dir, {
    signal: abort.signal,
    // Without the sandbox `$!` is a host pid (tests/sandbox covers the sandboxed group).
    config: {
      "dev.test_cmd": "sleep 100 & echo $!; sleep 100",
      "sandbox.mode": "danger-full-access",
    },
  });
  const result = await devTool("test").run({}, ctx);
  const pid = Number(text(result).split("\n")[4]);
  assert.deepEqual(result, {
    content:
      `$ sleep 100 & echo $!; sleep 100\ncancelled; process group killed\nexit code 137\nstdout:\n${pid}`,
    ok: false,
  });
  for (let i = 0; i < 40 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(isAlive(pid), false);
});

Deno.test("svc-core-dev registers code_test, code_lint and code_format in the bash category", () => {
  const tools: { name: string; category: string }[] = [];
  register_tools({ add: (t) => tools.push(t) });
  assert.deepEqual(tools.map((t) => [t.name, t.category]), [
    ["code_test", "bash"],
    ["code_lint", "bash"],
    ["code_format", "bash"],
  ]);
});

Deno.test(
  "in an untrusted worktree the detected command is shown with what it was chosen from before it runs (needs npm)",
  needs("npm"),
  async () => {
    using wt = tempWorktree();
    Deno.writeTextFileSync(
      `${wt.dir}/package.json`,
      JSON.stringify({ scripts: { test: "echo npm-ok" } }),
    );
    const shown: string[] = [];
    const context = (trusted: boolean) =>
      toolContext({
        worktree: wt.dir,
        signal: new AbortController().signal,
        config: ConfigSchema.parse({}),
        session: "test",
        headless: true,
        trusted,
        status: (line) => shown.push(line),
      });
    await devTool("test").run({}, context(false));
    await devTool("test").run({}, context(true));
    assert.deepEqual(shown, [
      `$ npm test (chosen from package.json script "test": "echo npm-ok"; this worktree is not ` +
      "trusted)",
      "$ npm test",
    ]);
  },
);
