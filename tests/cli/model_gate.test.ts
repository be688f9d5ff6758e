import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { type FakeProvider, startFakeProvider } from "../_support/fake_provider.ts";

Deno.test("svc run refuses an unapproved provider/model ref from the config until svc config set model", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "hello" }]);
  try {
    await gate(box, fake);
  } finally {
    await fake.close();
  }
});

/** Runs `svc run` with a configured anthropic ref before and after `svc config set model`. */
async function gate(box: Awaited<ReturnType<typeof sandbox>>, fake: FakeProvider) {
  const dir = `${box.home}/.config/svc`;
  await Deno.mkdir(dir, { recursive: true });
  // The anthropic backend is the fake: a stored base address, as svc connect would keep it.
  await Deno.writeTextFile(
    `${dir}/providers.json`,
    JSON.stringify({ anthropic: { api_key: "k", base_url: fake.url } }),
  );
  await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({ model: "anthropic/claude-x" }));
  const run = () => svc(["run", "-p", "hi"], { cwd: box.worktree, env: box.env });

  const refused = await run();
  assert.deepEqual([refused.code, refused.stdout, refused.stderr], [
    1,
    "",
    "svc run: model not approved: anthropic/claude-x comes from the config and is not in " +
    "~/.config/svc/models.json; approve it with svc config set model anthropic/claude-x, or " +
    "pass --model anthropic/claude-x or --approve-model\n",
  ]);
  assert.equal(fake.requests.length, 0);

  const approved = await svc(["config", "set", "--global", "model", "anthropic/claude-x"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.deepEqual([approved.code, approved.stderr], [
    0,
    `approved anthropic/claude-x for headless runs (recorded in ${dir}/models.json)\n`,
  ]);

  const ok = await run();
  assert.deepEqual([ok.code, ok.stdout, ok.stderr], [0, "hello\n", ""]);
  assert.deepEqual(
    [fake.requests[0].body.model, fake.requests[0].headers.authorization],
    ["claude-x", "Bearer k"],
  );
}
