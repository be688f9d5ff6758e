import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

Deno.test("svc connect stores the key 0600, writes provider and base_url, and svc run sends it", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "hi" }], { models: ["m1", "m2"] });
  const out = await svc(["connect", fake.url, "local", "--key-stdin", "--json"], {
    cwd: box.worktree,
    env: box.env,
    stdin: "sk-test-123\n",
  });
  assert.equal(out.code, 0, out.stderr);
  assert.deepEqual(JSON.parse(out.stdout), {
    provider: "local",
    base_url: fake.url,
    key_stored: true,
    checked: true,
    probe_error: null,
    models: ["m1", "m2"],
    config: `${box.worktree}/.svc/config.json`,
  });
  assert.equal(out.stdout.includes("sk-test-123"), false);
  const registryPath = `${box.home}/.config/svc/providers.json`;
  assert.equal((await Deno.stat(registryPath)).mode! & 0o777, 0o600);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(registryPath)), {
    local: { api_key: "sk-test-123", base_url: fake.url, custom: true },
  });
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/config.json`)), {
    provider: "local",
    base_url: fake.url,
  });
  const run = await svc(["run", "--model", "m1", "-p", "hello"], {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(run.code, 0, run.stderr);
  assert.equal(fake.requests.at(-1)!.headers.authorization, "Bearer sk-test-123");
  assert.equal(run.stderr.includes("sk-test-123"), false);
});

Deno.test("svc connect rejects a failed probe and saves nothing unless --save-anyway", async () => {
  await using box = await sandbox();
  const url = "http://127.0.0.1:1";
  const out = await svc(["connect", url, "dead", "--key-stdin"], {
    cwd: box.worktree,
    env: box.env,
    stdin: "k",
  });
  assert.equal(out.code, 1);
  assert.match(out.stderr, /nothing was saved \(pass --save-anyway to keep it\)/);
  assert.equal(await Deno.stat(`${box.home}/.config/svc/providers.json`).catch(() => null), null);
  const forced = await svc(["connect", url, "dead", "--key-stdin", "--save-anyway"], {
    cwd: box.worktree,
    env: box.env,
    stdin: "key-for-dead",
  });
  const config = `${box.worktree}/.svc/config.json`;
  const failure = `Listing models of dead at ${url} failed: Could not connect: Fetch failed: ` +
    "Requests to port 1 are blocked";
  assert.deepEqual([forced.code, forced.stdout, forced.stderr], [
    0,
    `Saved dead at ${url}, but the probe failed: ${failure}; provider and base_url written to ` +
    `${config}\n`,
    "",
  ]);
  const json = await svc(["connect", url, "dead", "--key-stdin", "--save-anyway", "--json"], {
    cwd: box.worktree,
    env: box.env,
    stdin: "key-for-dead",
  });
  assert.deepEqual(JSON.parse(json.stdout), {
    provider: "dead",
    base_url: url,
    key_stored: true,
    checked: true,
    probe_error: failure,
    models: [],
    config,
  });
});

Deno.test("svc connect says why it did not probe", async () => {
  await using box = await sandbox();
  const url = "http://127.0.0.1:1";
  const config = `${box.worktree}/.svc/config.json`;
  const skipped = await svc(["connect", url, "dead", "--no-check"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.deepEqual([skipped.code, skipped.stdout], [
    0,
    `Connected dead at ${url} (not checked: --no-check); provider and base_url written to ` +
    `${config}\nNo API key stored (fine for local servers)\n`,
  ]);
  await Deno.writeTextFile(config, JSON.stringify({ connect_check: false }));
  const off = await svc(["connect", url, "dead"], { cwd: box.worktree, env: box.env });
  assert.equal(
    off.stdout.split("\n")[0],
    `Connected dead at ${url} (not checked: connect_check is false); provider and base_url ` +
      `written to ${config}`,
  );
});

Deno.test("svc connect derives a custom name from the host and --no-check skips the probe", async () => {
  await using box = await sandbox();
  const out = await svc(["connect", "http://my-llm.example:8080/v1", "--no-check", "--json"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assert.deepEqual([result.provider, result.base_url, result.checked, result.key_stored], [
    "my-llm-example-8080",
    "http://my-llm.example:8080",
    false,
    false,
  ]);
});

Deno.test("svc connect to a known host selects that provider", async () => {
  await using box = await sandbox();
  const out = await svc(["connect", "https://api.openai.com/v1", "--no-check", "--json"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.equal(out.code, 0, out.stderr);
  assert.equal(JSON.parse(out.stdout).provider, "openai");
});

Deno.test("svc connect without a target and without a terminal is a usage error that says what to pass", async () => {
  await using box = await sandbox();
  const out = await svc(["connect"], { cwd: box.worktree, env: box.env });
  assert.deepEqual([out.code, out.stdout, out.stderr], [
    2,
    "",
    "svc connect: name a provider or URL: svc connect <provider|url> [name]\n",
  ]);
});

Deno.test("svc connect refuses an unknown provider name", async () => {
  await using box = await sandbox();
  const out = await svc(["connect", "nosuch", "--no-check"], { cwd: box.worktree, env: box.env });
  assert.equal(out.code, 1);
  assert.match(out.stderr, /Unknown provider nosuch: choose one of .*openai/);
});
