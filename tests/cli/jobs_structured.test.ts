/** A job's `json_schema` (svc extension): stored by `svc jobs add`, enforced on every run. */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

const SCHEMA = {
  type: "object",
  properties: { done: { type: "boolean" } },
  required: ["done"],
};

Deno.test("a job with json_schema is repaired to a valid answer, printed and kept as JSON", async () => {
  await using box = await sandbox();
  const answers = ['{"done": "yes"}', '{"done": true}'];
  const fake = await startFakeProvider((body: { stream?: boolean }) =>
    body.stream === false ? { text: "memory" } : { text: answers.shift() ?? "(none)" }
  );
  try {
    await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
    await Deno.writeTextFile(
      `${box.home}/.config/svc/config.json`,
      JSON.stringify({ provider: "generic", base_url: fake.url, model: "m", stream_retries: 0 }),
    );
    await Deno.writeTextFile(`${box.worktree}/done.json`, JSON.stringify(SCHEMA));
    const jobs = (args: string[]) =>
      svc(["jobs", "--path", box.worktree, ...args], { cwd: box.worktree, env: box.env });
    const bad = await jobs(["add", "check", "--prompt", "go", "--json-schema", '{"type": 1}']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--json-schema is not a valid JSON Schema/);
    const added = await jobs([
      "add",
      "check",
      "--prompt",
      "go",
      "--json-schema",
      "@done.json",
      "--json-retries",
      "1",
      "--approval",
      "auto",
    ]);
    assert.equal(added.code, 0, added.stderr);
    const register = JSON.parse(await Deno.readTextFile(`${box.worktree}/.svc/jobs.json`));
    assert.deepEqual(register.jobs[0].json_schema, SCHEMA);
    assert.equal(register.jobs[0].json_retries, 1);
    const run = await jobs(["run", "check"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '{"done":true}\n');
    const streamed = fake.requests.filter((r) => r.body?.stream !== false);
    assert.equal(streamed.length, 2);
    assert.match(streamed[1].body.messages.at(-1).content, /\/done: must be boolean/);
  } finally {
    await fake.close();
  }
});
