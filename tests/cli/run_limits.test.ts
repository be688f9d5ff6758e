import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { type Reply, startFakeProvider } from "../_support/fake_provider.ts";

/** A runaway model: every round lists the worktree again. */
const runaway = (_body: unknown, index: number): Reply => ({
  tool_calls: [{ name: "list_dir", arguments: { path: "." }, id: `call_${index}` }],
  usage: {
    prompt_tokens: 1000,
    completion_tokens: 100,
    prompt_tokens_details: { cached_tokens: 400 },
    completion_tokens_details: { reasoning_tokens: 60 },
  },
});

const run = (url: string, ...args: string[]) => [
  "run",
  "--base-url",
  url,
  "--model",
  "m",
  "--output",
  "json",
  ...args,
  "loop forever",
];

async function writeGlobal(home: string, config: unknown): Promise<void> {
  await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(`${home}/.config/svc/config.json`, JSON.stringify(config));
}

Deno.test("svc run --max-turns ends a runaway turn truncated with the reason, asking for usage", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider(runaway);
  const out = await svc(run(fake.url, "--max-turns", "2"), { cwd: box.worktree, env: box.env });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assert.deepEqual([result.status, result.reason], ["truncated", "max_turns"]);
  assert.equal(fake.requests.length, 2);
  assert.deepEqual(fake.requests[0].body.stream_options, { include_usage: true });
  assert.deepEqual(result.usage, {
    prompt_tokens: 2000,
    completion_tokens: 200,
    cached_tokens: 800,
    reasoning_tokens: 120,
  });
  assert.equal(result.cost_usd, null);
  assert.deepEqual(result.errors.map((e: { code: string }) => e.code), ["max_turns"]);
});

Deno.test("svc run --max-tokens-total and --max-cost end the turn at the round that reaches them", async () => {
  await using box = await sandbox();
  await writeGlobal(box.home, { prices: { "generic/m": { input: 1, output: 10 } } });
  const fake = await startFakeProvider(runaway);
  const tokens = await svc(run(fake.url, "--max-tokens-total", "3000"), {
    cwd: box.worktree,
    env: box.env,
  });
  assert.equal(tokens.code, 0, tokens.stderr);
  const byTokens = JSON.parse(tokens.stdout);
  // 1100 tokens a round: the third round reaches 3300.
  assert.deepEqual([byTokens.status, byTokens.reason], ["truncated", "max_tokens_total"]);
  assert.equal(fake.requests.length, 3);
  // Each round costs (600 * 1 + 400 * 1 + 100 * 10) / 1e6 = $0.002: the second reaches $0.004.
  const cost = await svc(run(fake.url, "--max-cost", "0.003"), {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  const byCost = JSON.parse(cost.stdout);
  assert.deepEqual([byCost.status, byCost.reason], ["truncated", "max_cost"]);
  assert.equal(fake.requests.length, 5);
  assert.ok(Math.abs(byCost.cost_usd - 0.004) < 1e-12, String(byCost.cost_usd));
});

Deno.test("svc run --verbose ends with a usage line: tokens in, cached, out, cost", async () => {
  await using box = await sandbox();
  await writeGlobal(box.home, {
    prices: { "generic/m": { input: 2, output: 8, cached_input: 1 } },
  });
  const fake = await startFakeProvider([{
    text: "hello",
    usage: {
      prompt_tokens: 1000,
      completion_tokens: 50,
      prompt_tokens_details: { cached_tokens: 200 },
    },
  }]);
  const out = await svc(["run", "--base-url", fake.url, "--model", "m", "--verbose", "hi"], {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  // (800 * 2 + 200 * 1 + 50 * 8) / 1e6 = $0.0022
  assert.match(out.stderr, /usage: 1000 tokens in \(200 cached\), 50 out; cost \$0\.0022\n/);
});

Deno.test("an untrusted worktree cannot raise the user's limits or set prices; it may lower them", async () => {
  await using box = await sandbox({
    ".svc/config.json": JSON.stringify({
      limits: { max_turns: 50 },
      prices: { "generic/m": { input: 0, output: 0 } },
    }),
  });
  await writeGlobal(box.home, {
    "limits.max_turns": 2,
    "limits.max_cost": 1,
    prices: { "generic/m": { input: 1, output: 1 } },
  });
  const fake = await startFakeProvider(runaway);
  const out = await svc(run(fake.url), { cwd: box.worktree, env: box.env });
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assert.deepEqual([result.status, result.reason], ["truncated", "max_turns"]);
  assert.equal(fake.requests.length, 2);
  assert.ok(result.cost_usd > 0, "the user's prices stand");
  assert.match(out.stderr, /ignored limits\.max_turns, prices from .*not trusted/);
  // A lower limit is taken.
  await Deno.writeTextFile(
    `${box.worktree}/.svc/config.json`,
    JSON.stringify({ limits: { max_turns: 1 } }),
  );
  const lower = await svc(run(fake.url), { cwd: box.worktree, env: box.env });
  await fake.close();
  assert.deepEqual(JSON.parse(lower.stdout).reason, "max_turns");
  assert.equal(fake.requests.length, 3);
});

Deno.test("limit flags take whole numbers and dollar amounts, or are a usage error", async () => {
  await using box = await sandbox();
  for (
    const [flag, value, message] of [
      ["--max-turns", "0", "--max-turns takes a whole number from 1 to 64"],
      ["--max-turns", "65", "--max-turns takes a whole number from 1 to 64"],
      ["--max-tokens-total", "1e3", "--max-tokens-total takes a whole number of 1 or more"],
      ["--max-cost", "free", "--max-cost takes an amount of US dollars above 0"],
      ["--max-cost", "0", "--max-cost takes an amount of US dollars above 0"],
    ]
  ) {
    const out = await svc(["run", "--model", "m", flag, value, "hi"], {
      cwd: box.worktree,
      env: box.env,
    });
    assert.equal(out.code, 2, `${flag} ${value}: ${out.stderr}`);
    assert.ok(out.stderr.includes(message), out.stderr);
  }
});
