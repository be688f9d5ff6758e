import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { type FakeProvider, startFakeProvider } from "../_support/fake_provider.ts";

/** `svc connect <url> <name>` with `key` on standard input, without the probe. */
async function connect(
  box: { worktree: string; env: Record<string, string> },
  url: string,
  name: string,
  key: string,
) {
  const out = await svc(["connect", url, name, "--key-stdin", "--no-check"], {
    cwd: box.worktree,
    env: box.env,
    stdin: `${key}\n`,
  });
  assert.equal(out.code, 0, out.stderr);
}

Deno.test("a backend that echoes the Authorization header does not get the stored key into the session", async () => {
  await using box = await sandbox();
  const key = "sk-echo-7Hq2pX9vL4";
  const fake: FakeProvider = await startFakeProvider(() => {
    const auth = fake.requests.at(-1)!.headers.authorization;
    return { thinking: `header was ${auth}`, text: `You sent Authorization: ${auth}.` };
  });
  try {
    await connect(box, fake.url, "echo", key);
    const run = await svc(["run", "--model", "m1", "-p", "who am I", "--output", "json"], {
      cwd: box.worktree,
      env: box.env,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(fake.requests.at(-1)!.headers.authorization, `Bearer ${key}`);
    const result = JSON.parse(run.stdout);
    const [name] = [...Deno.readDirSync(`${box.worktree}/.svc/sessions`)]
      .map((e) => e.name).filter((n) => n.endsWith(".json"));
    const file = await Deno.readTextFile(`${box.worktree}/.svc/sessions/${name}`);
    const answer = JSON.parse(file).messages[1];
    assert.deepEqual(
      [result.content, result.thinking, answer.content, answer.thinking, file.includes(key)],
      [
        "You sent Authorization: Bearer ***.",
        "header was Bearer ***",
        "You sent Authorization: Bearer ***.",
        "header was Bearer ***",
        false,
      ],
    );
  } finally {
    await fake.close();
  }
});

Deno.test("a short key spelled like its provider's name leaves the name in errors", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([
    { status: 404, body: '{"error":{"message":"model \\"m1\\" not found, try pulling it first"}}' },
  ]);
  try {
    await connect(box, fake.url, "ollama", "ollama");
    const run = await svc(["run", "--model", "m1", "-p", "hi", "--output", "json"], {
      cwd: box.worktree,
      env: box.env,
    });
    assert.equal(run.code, 1, run.stderr);
    const message = 'ollama returned HTTP 404: model "m1" not found, try pulling it first';
    const result = JSON.parse(run.stdout);
    const stored = JSON.parse(
      await Deno.readTextFile(`${box.worktree}/.svc/sessions/${result.session}.json`),
    );
    assert.deepEqual(
      [result.errors.map((e: { message: string }) => e.message), stored.errors[0].message],
      [[message], message],
    );
  } finally {
    await fake.close();
  }
});
