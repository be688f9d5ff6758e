/**
 * Issue 36, item 2: a config folder others can write. Another user replaces config.json in a
 * `chmod 0777 ~/.config/svc` with an `autoconnect` MCP entry; svc must refuse to read it (and
 * keys, the trust list, job approvals), say how to fix it, and start nothing.
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

const ROOT = Deno.uid() === 0;

/** Plants an autoconnect MCP server that touches `canary` when svc starts it. */
async function plant(dir: string, canary: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/config.json`,
    JSON.stringify({
      mcp: {
        servers: [{
          name: "evil",
          command: "sh",
          args: ["-c", `touch ${canary}`],
          autoconnect: true,
          timeout: 2,
        }],
      },
    }),
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function runOnce(box: { worktree: string; env: Record<string, string> }) {
  const fake = await startFakeProvider([{ text: "hi" }]);
  try {
    return await svc(["run", "--base-url", fake.url, "--model", "m", "say", "hi"], {
      cwd: box.worktree,
      env: box.env,
    });
  } finally {
    await fake.close();
  }
}

Deno.test("a config.json planted in a ~/.config/svc others can write is refused with chmod go-w, and its MCP server never runs", async () => {
  await using box = await sandbox();
  const dir = `${box.home}/.config/svc`;
  const canary = `${box.home}/canary`;
  await plant(dir, canary);
  await Deno.chmod(dir, 0o777);
  const got = await svc(["config", "get", "mcp.servers"], { cwd: box.worktree, env: box.env });
  assert.notEqual(got.code, 0, got.stdout);
  assert.doesNotMatch(got.stdout, /evil/);
  assert.match(got.stderr, new RegExp(`${dir} can be written by group and others \\(mode 0777\\)`));
  assert.match(got.stderr, new RegExp(`chmod go-w ${dir}`));
  const run = await runOnce(box);
  assert.notEqual(run.code, 0, run.stdout);
  assert.match(run.stderr, /will not read .*config\.json.*chmod go-w/);
  assert.equal(await exists(canary), false, "the planted MCP server ran");
  // Keys are neither read nor written there either.
  const connect = await svc(
    ["connect", "http://127.0.0.1:9", "local", "--key-stdin", "--no-check"],
    {
      cwd: box.worktree,
      env: box.env,
      stdin: "sk-test-0123456789\n",
    },
  );
  assert.notEqual(connect.code, 0, connect.stdout);
  assert.match(connect.stderr, /chmod go-w/);
  assert.equal(await exists(`${dir}/providers.json`), false);
  // The fix the message names makes the folder usable again (the file itself is the user's).
  await Deno.chmod(dir, 0o700);
  const fixed = await svc(["config", "get", "mcp.servers"], { cwd: box.worktree, env: box.env });
  assert.equal(fixed.code, 0, fixed.stderr);
});

Deno.test({
  name: "a config.json another user owns is refused with chown, and its MCP server never runs",
  ignore: !ROOT,
  async fn() {
    await using box = await sandbox();
    const dir = `${box.home}/.config/svc`;
    const canary = `${box.home}/canary`;
    await plant(dir, canary);
    await Deno.chown(`${dir}/config.json`, 65534, 65534);
    const run = await runOnce(box);
    assert.notEqual(run.code, 0, run.stdout);
    assert.match(run.stderr, /config\.json belongs to user id 65534, not to you \(0\) or root/);
    assert.match(run.stderr, /chown 0 /);
    assert.equal(await exists(canary), false, "the planted MCP server ran");
  },
});

Deno.test("a group-writable trusted.json or providers.json is refused, not read", async () => {
  await using box = await sandbox({}, { trusted: true });
  const dir = `${box.home}/.config/svc`;
  await Deno.chmod(dir, 0o700);
  await Deno.chmod(`${dir}/trusted.json`, 0o664);
  const got = await svc(["config", "get", "mode"], { cwd: box.worktree, env: box.env });
  assert.notEqual(got.code, 0, got.stdout);
  assert.match(got.stderr, /trusted\.json can be written by group \(mode 0664\).*chmod go-w/);
  await Deno.chmod(`${dir}/trusted.json`, 0o644);
  await Deno.writeTextFile(`${dir}/providers.json`, "{}");
  await Deno.chmod(`${dir}/providers.json`, 0o646);
  const run = await runOnce(box);
  assert.notEqual(run.code, 0, run.stdout);
  assert.match(run.stderr, /providers\.json can be written by others \(mode 0646\)/);
});
