import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";

Deno.test("svc config set, get, unset and list work on the local file", async () => {
  await using box = await sandbox();
  const run = (...args: string[]) => svc(["config", ...args], { cwd: box.worktree, env: box.env });
  assert.equal((await run("set", "max_tokens", "1234")).code, 0);
  const loosened = await run("set", "tool_permission.bash", "allow");
  assert.equal(loosened.code, 0);
  const path = `${box.worktree}/.svc/config.json`;
  const untrusted = `ignored tool_permission.bash from ${path}: this worktree is not trusted, so ` +
    "its config may tighten svc's policy but not loosen it (run svc trust to trust it)\n";
  assert.equal(loosened.stderr, `note: ${untrusted}`);
  assert.equal((await run("set", "tools.deny", '["grep"]')).code, 0);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), {
    max_tokens: 1234,
    tool_permission: { bash: "allow" },
    "tools.deny": ["grep"],
  });
  assert.equal((await run("get", "max_tokens")).stdout, "1234\n");
  const ignored = await run("get", "tool_permission.bash", "--json");
  // The effective value: the local allow is ignored, so the default action shows.
  assert.deepEqual([ignored.stdout, ignored.stderr], ['"ask"\n', `warning: ${untrusted}`]);
  const trusted = await svc(["trust"], { cwd: box.worktree, env: box.env });
  assert.equal(trusted.code, 0, trusted.stderr);
  const applied = await run("get", "tool_permission.bash", "--json");
  assert.deepEqual([applied.stdout, applied.stderr], ['"allow"\n', ""]);
  const listed = JSON.parse((await run("list", "--json")).stdout);
  assert.equal(listed.max_tokens, 1234);
  assert.equal(listed.compact_keep, 4);
  assert.deepEqual(listed.tool_permission, {
    read: "allow",
    list: "allow",
    edit: "ask",
    bash: "allow",
    web: "ask",
    mcp: "ask",
    delegate: "allow",
    ask: "allow",
  });
  assert.equal((await run("unset", "max_tokens")).code, 0);
  assert.equal((await run("get", "max_tokens")).stdout, "8192\n");
});

Deno.test("svc config --global writes the global file", async () => {
  await using box = await sandbox();
  const out = await svc(["config", "set", "--global", "model", "gpt-x"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.equal(out.code, 0, out.stderr);
  assert.deepEqual(
    JSON.parse(await Deno.readTextFile(`${box.home}/.config/svc/config.json`)),
    { model: "gpt-x" },
  );
});

Deno.test("svc config refuses unknown keys, removed keys and invalid values without writing", async () => {
  await using box = await sandbox();
  const run = (...args: string[]) => svc(["config", ...args], { cwd: box.worktree, env: box.env });
  const cases: Array<[string[], RegExp]> = [
    [["set", "modle", "x"], /unknown key "modle"/],
    [["set", "api_key", "x"], /key "api_key" was removed/],
    [["set", "max_tokens", "-5"], /invalid value for "max_tokens"/],
    [["set", "tool_permission.bash", "sometimes"], /invalid value for "tool_permission.bash"/],
  ];
  for (const [args, pattern] of cases) {
    const out = await run(...args);
    assert.equal(out.code, 1, args.join(" "));
    assert.match(out.stderr, pattern);
  }
  assert.equal(await Deno.stat(`${box.worktree}/.svc/config.json`).catch(() => null), null);
});

Deno.test("svc config set model approves a provider/model ref in models.json; unset leaves it", async () => {
  await using box = await sandbox();
  const run = (...args: string[]) => svc(["config", ...args], { cwd: box.worktree, env: box.env });
  const local = `${box.worktree}/.svc/config.json`;
  const models = `${box.home}/.config/svc/models.json`;
  // Bare ids and refs to unknown providers are not unfolded: nothing to approve.
  for (const bare of ["gpt-x", "unknown/x"]) {
    const out = await run("set", "model", bare);
    assert.deepEqual([out.code, out.stdout, out.stderr], [0, `set model in ${local}\n`, ""]);
  }
  assert.equal(await Deno.stat(models).catch(() => null), null);

  const out = await run("set", "model", "anthropic/claude-x");
  assert.deepEqual([out.code, out.stdout, out.stderr], [
    0,
    `set model in ${local}\n`,
    `approved anthropic/claude-x for headless runs (recorded in ${models})\n`,
  ]);
  const stored = await Deno.readTextFile(models);
  const entries = JSON.parse(stored);
  assert.deepEqual(entries, [{
    provider: "anthropic",
    model: "claude-x",
    added_at: entries[0].added_at,
    last_used: entries[0].added_at,
  }]);
  assert.match(entries[0].added_at, /^\d{4}-\d\d-\d\dT/);

  const unset = await run("unset", "model");
  assert.deepEqual([unset.code, unset.stderr], [0, ""]);
  assert.equal(await Deno.readTextFile(models), stored);
});
