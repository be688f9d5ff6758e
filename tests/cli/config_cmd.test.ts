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

Deno.test("svc config set lists the allowed values of reasoning and keeps temperature within 0 to 2", async () => {
  await using box = await sandbox();
  const run = (...args: string[]) => svc(["config", ...args], { cwd: box.worktree, env: box.env });
  const cases: Array<[string[], string]> = [
    [
      ["set", "reasoning", "maybe"],
      'svc config: invalid value for "reasoning": Invalid option: expected one of ' +
      'false|true|"off"|"on"|"auto"|"low"|"medium"|"high"\n',
    ],
    [
      ["set", "temperature", "7"],
      'svc config: invalid value for "temperature": Too big: expected number to be <=2\n',
    ],
    [
      ["set", "temperature", "-0.5"],
      'svc config: invalid value for "temperature": Too small: expected number to be >=0\n',
    ],
  ];
  for (const [args, stderr] of cases) {
    const out = await run(...args);
    assert.deepEqual([out.code, out.stdout, out.stderr], [1, "", stderr], args.join(" "));
  }
  assert.equal(await Deno.stat(`${box.worktree}/.svc/config.json`).catch(() => null), null);
  for (const value of ["0", "1.3", "2"]) {
    assert.equal((await run("set", "temperature", value)).code, 0, value);
  }
});

Deno.test("svc config set and unset on a file that is not JSON name the file and the fix and leave it as it was", async () => {
  await using box = await sandbox({ ".svc/config.json": '{ "model": "x",\n' });
  const path = `${box.worktree}/.svc/config.json`;
  const run = (...args: string[]) => svc(["config", ...args], { cwd: box.worktree, env: box.env });
  const stderr = `svc config: Config file ${path} is not valid JSON: Expected double-quoted ` +
    `property name in JSON at position 16 (line 2 column 1). Fix it by hand, or move it aside ` +
    `(mv ${path} ${path}.broken) and svc config set starts a new one; svc never overwrites it\n`;
  for (const args of [["set", "max_tokens", "5"], ["unset", "model"]]) {
    const out = await run(...args);
    assert.deepEqual([out.code, out.stdout, out.stderr], [1, "", stderr], args.join(" "));
  }
  assert.equal(await Deno.readTextFile(path), '{ "model": "x",\n');
});

Deno.test("svc config set and unset repair a file holding an invalid value or a removed key", async () => {
  await using box = await sandbox({
    ".svc/config.json": JSON.stringify({ max_tokens: -1, api_key: "sk-old", model: "m" }),
  });
  const path = `${box.worktree}/.svc/config.json`;
  const run = (...args: string[]) => svc(["config", ...args], { cwd: box.worktree, env: box.env });
  // Each fix is written; what else keeps the file from loading is named with its own fix.
  const removed = await run("unset", "api_key");
  assert.deepEqual([removed.code, removed.stdout, removed.stderr], [
    0,
    `unset api_key in ${path}\n`,
    `note: ${path} holds an invalid value for "max_tokens": Too small: expected number to be ` +
    `>=0; fix it with svc config set max_tokens <value> or svc config unset max_tokens\n`,
  ]);
  const fixed = await run("set", "max_tokens", "5");
  assert.deepEqual([fixed.code, fixed.stdout, fixed.stderr], [
    0,
    `set max_tokens in ${path}\n`,
    "",
  ]);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), { max_tokens: 5, model: "m" });
  // Setting a removed key is still refused.
  const again = await run("set", "api_key", "sk-new");
  assert.equal(again.code, 1);
  assert.match(again.stderr, /key "api_key" was removed/);
});

Deno.test("svc config unset of a key that is not set says so and writes nothing", async () => {
  await using box = await sandbox();
  const path = `${box.worktree}/.svc/config.json`;
  const run = (...args: string[]) => svc(["config", ...args], { cwd: box.worktree, env: box.env });
  for (const key of ["temperature", "tool_permission.bash"]) {
    const out = await run("unset", key);
    assert.deepEqual(
      [out.code, out.stdout, out.stderr],
      [0, `${key} is not set in ${path}; nothing changed\n`, ""],
      key,
    );
  }
  assert.equal(await Deno.stat(`${box.worktree}/.svc`).catch(() => null), null);
  await Deno.mkdir(`${box.worktree}/.svc`);
  await Deno.writeTextFile(path, '{"model": "m"}');
  const out = await run("unset", "temperature");
  assert.equal(out.stdout, `temperature is not set in ${path}; nothing changed\n`);
  assert.equal(await Deno.readTextFile(path), '{"model": "m"}');
});
