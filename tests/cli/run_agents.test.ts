/** `svc run` with delegation, `--type` and `--team`: real processes, the bundled catalog. */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

type Body = { stream?: boolean; messages: Array<{ role: string; content: string }> };

Deno.test("svc run: a model that delegates to researcher gets its answer; both sessions are linked", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([
    {
      tool_calls: [{ name: "delegate", arguments: { type: "researcher", task: "find the port" } }],
    },
    { text: "The port is 8080." },
    { text: "Researcher says 8080." },
  ]);
  try {
    const out = await svc(
      ["run", "--base-url", fake.url, "--model", "m", "--session-id", "lead", "-p", "which port?"],
      { cwd: box.worktree, env: box.env },
    );
    assert.deepEqual([out.code, out.stdout.trim()], [0, "Researcher says 8080."], out.stderr);
    const sub = fake.requests[1].body as Body;
    assert.equal(sub.messages.at(-1)!.content, "find the port");
    const dir = `${box.worktree}/.svc/sessions`;
    const lead = JSON.parse(await Deno.readTextFile(`${dir}/lead.json`));
    assert.equal(lead.sub_sessions.length, 1);
    const child = JSON.parse(await Deno.readTextFile(`${dir}/${lead.sub_sessions[0]}.json`));
    assert.equal(child.parent_id, "lead");
    assert.deepEqual(child.messages.map((m: { content: string }) => m.content), [
      "find the port",
      "The port is 8080.",
    ]);
    const tool = lead.messages.find((m: { role: string }) => m.role === "tool");
    assert.equal(tool.content, "The port is 8080.");
  } finally {
    await fake.close();
  }
});

Deno.test("svc run --team programming runs four stages and writes the team memory", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider((body: Record<string, unknown>, i: number) =>
    (body as Body).stream === false
      ? { text: "Remember: stages ran." }
      : { text: `stage ${i + 1} done` }
  );
  try {
    const out = await svc(
      [
        "run",
        "--base-url",
        fake.url,
        "--model",
        "m",
        "--team",
        "programming",
        "--output",
        "json",
        "-p",
        "add a flag",
      ],
      { cwd: box.worktree, env: box.env },
    );
    assert.equal(out.code, 0, out.stderr);
    const result = JSON.parse(out.stdout);
    assert.equal(result.status, "ok");
    assert.equal(result.content, "stage 4 done");
    assert.deepEqual(
      result.stages.map((s: { type: string; status: string }) => [s.type, s.status]),
      [["planner", "ok"], ["programmer", "ok"], ["tester", "ok"], ["code-reviewer", "ok"]],
    );
    for (const stage of result.stages) assert.match(stage.session, /^sub_\d{8}_\d{6}_ses_/);
    assert.match(out.stderr, /stage 1\/4 planner: running\n/);
    assert.equal(
      await Deno.readTextFile(`${box.worktree}/.svc/teams/programming/memory.md`),
      "Remember: stages ran.\n",
    );
  } finally {
    await fake.close();
  }
});

Deno.test("svc run --type runs the prompt as that type; an unknown type is a usage error", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "reviewed" }]);
  try {
    const out = await svc(
      ["run", "--base-url", fake.url, "--model", "m", "--type", "code-reviewer", "-p", "review"],
      { cwd: box.worktree, env: box.env },
    );
    assert.deepEqual([out.code, out.stdout.trim()], [0, "reviewed"], out.stderr);
    const body = fake.requests[0].body as Body & { tools: Array<{ function: { name: string } }> };
    const names = body.tools.map((t) => t.function.name);
    assert.ok(!names.includes("file_write") && !names.includes("file_edit"), names.join(","));
    const unknown = await svc([
      "run",
      "--base-url",
      fake.url,
      "--model",
      "m",
      "--type",
      "wizard",
      "-p",
      "x",
    ], {
      cwd: box.worktree,
      env: box.env,
    });
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /^svc run: unknown type "wizard"; available types: .*code-reviewer.*researcher/m,
    );
    const both = await svc(["run", "--type", "writer", "--team", "writing", "-p", "x"], {
      cwd: box.worktree,
      env: box.env,
    });
    assert.equal(both.code, 2);
  } finally {
    await fake.close();
  }
});
