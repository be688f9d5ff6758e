/** Team runs: stages in order, briefs, memory, failures; scripted provider, sessions on disk. */
import assert from "node:assert/strict";
import { STAGE_RESULT_MAX, teamMemoryPath } from "../../src/engine/team.ts";
import { catalogOf } from "../_support/catalog.ts";
import { harness, readStored } from "../_support/engine.ts";

type Body = {
  stream?: boolean;
  model?: string;
  messages: Array<{ role: string; content: string }>;
};

const systemOf = (body: Body) =>
  body.messages.filter((m) => m.role === "system").map((m) => m.content).join("\n");
const userOf = (body: Body) => body.messages.find((m) => m.role === "user")!.content;

const catalog = catalogOf({
  types: {
    alpha: { system_prompt: "ALPHA" },
    beta: { system_prompt: "BETA" },
    gamma: { system_prompt: "GAMMA" },
  },
  teams: {
    trio: [
      { type: "alpha", task_hint: "Collect the facts.", handoff_note: "Facts are in the result." },
      { type: "beta", mode: "plan", task_hint: "Plan the work." },
      "gamma",
    ],
    broken: ["alpha", "wizard"],
  },
});

/** Answers each stage by its type; the summary request (non-streaming) with `summary`. */
function stages(answers: Record<string, string | { error: true }>, summary = "MEMORY v1") {
  return (raw: Record<string, unknown>) => {
    const body = raw as Body;
    if (body.stream === false) return { text: summary };
    for (const [type, answer] of Object.entries(answers)) {
      if (systemOf(body).includes(type.toUpperCase())) {
        return typeof answer === "string" ? { text: answer } : { status: 500, body: "boom" };
      }
    }
    return { text: "?" };
  };
}

Deno.test("a three-stage team briefs each stage, links its sessions and writes its memory", async () => {
  const long = "x".repeat(STAGE_RESULT_MAX + 10);
  await using h = await harness(stages({ alpha: long, beta: "the plan", gamma: "built" }), {
    catalog,
  });
  const lead = h.store.create("lead");
  const memoryPath = teamMemoryPath(h.worktree, "trio");
  await Deno.mkdir(memoryPath.replace(/\/memory\.md$/, ""), { recursive: true });
  await Deno.writeTextFile(memoryPath, "MEMORY v0");
  const run = await h.engine.runTeam("trio", "make a thing", { session: lead });
  assert.equal(run.status, "ok");
  assert.deepEqual(run.stages.map((s) => [s.stage, s.type, s.status]), [
    [1, "alpha", "ok"],
    [2, "beta", "ok"],
    [3, "gamma", "ok"],
  ]);
  assert.equal(run.result.content, "built");
  const briefs = h.fake.requests.filter((r) => (r.body as Body).stream !== false)
    .map((r) => userOf(r.body as Body));
  assert.equal(
    briefs[0],
    'You are stage 1 of 3 (alpha) of the team "trio".\n\nOriginal task:\nmake a thing\n\n' +
      "## Team memory\n\nMEMORY v0\n\nYour part:\nCollect the facts.",
  );
  assert.equal(
    briefs[1],
    'You are stage 2 of 3 (beta) of the team "trio".\n\nOriginal task:\nmake a thing\n\n' +
      `## Stage 1 result (alpha)\n\n${"x".repeat(STAGE_RESULT_MAX)}\n` +
      `[... truncated at ${STAGE_RESULT_MAX} characters]\n\n` +
      "Handoff note from stage 1:\nFacts are in the result.\n\n## Team memory\n\nMEMORY v0\n\n" +
      "Your part:\nPlan the work.",
  );
  assert.match(briefs[2], /## Stage 2 result \(beta\)\n\nthe plan\n\n## Team memory/);
  assert.match(briefs[2], /Your part:\nDo your part of the original task\.$/);
  // The beta stage ran in plan mode.
  assert.match(systemOf(h.fake.requests[1].body as Body), /plan mode/);
  assert.doesNotMatch(systemOf(h.fake.requests[2].body as Body), /plan mode/);
  assert.equal(await Deno.readTextFile(memoryPath), "MEMORY v1\n");
  assert.equal(run.memory, memoryPath);
  const stored = await readStored(h, "lead");
  assert.deepEqual(stored.sub_sessions, run.stages.map((s) => s.session));
  assert.deepEqual(stored.messages.map((m: { role: string }) => m.role), ["command"]);
  for (const stage of run.stages) {
    assert.equal((await readStored(h, stage.session)).parent_id, "lead");
  }
  // The summary saw the old memory and every stage.
  const summary = h.fake.requests.find((r) => (r.body as Body).stream === false)!.body as Body;
  assert.match(
    summary.messages[1].content,
    /# Memory so far\n\nMEMORY v0\n\n# This run\n\n## Stage 1 \(alpha\): ok/,
  );
});

Deno.test("a failing stage stops the run; the memory falls back to one line per stage", async () => {
  await using h = await harness(stages({ alpha: "facts", beta: { error: true } }, ""), {
    catalog,
    config: { stream_retries: 0 },
  });
  const run = await h.engine.runTeam("trio", "make a thing", { session: h.store.create("lead") });
  assert.equal(run.status, "error");
  assert.deepEqual(run.stages.map((s) => [s.type, s.status]), [["alpha", "ok"], ["beta", "error"]]);
  assert.ok(!h.fake.requests.some((r) => systemOf(r.body as Body).includes("GAMMA")));
  const memory = await Deno.readTextFile(teamMemoryPath(h.worktree, "trio"));
  const [one, two] = run.stages.map((s) => s.session);
  assert.match(
    memory,
    new RegExp(
      `^## Run \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: make a thing\\n\\n` +
        `- Stage 1 \\(alpha, session ${one}\\): ok: facts\\n` +
        `- Stage 2 \\(beta, session ${two}\\): error: .+\\n$`,
    ),
  );
});

Deno.test("an unknown stage type fails the run before any stage runs", async () => {
  await using h = await harness(stages({ alpha: "facts" }), { catalog });
  const run = await h.engine.runTeam("broken", "t", { session: h.store.create("lead") });
  assert.equal(run.status, "error");
  assert.deepEqual(run.stages, []);
  assert.deepEqual(run.errors.map((e) => [e.code, e.message]), [[
    "unknown_type",
    'unknown type "wizard" in stage 2 of team "broken"; available types: alpha, beta, gamma',
  ]]);
  assert.equal(h.fake.requests.length, 0);
  assert.equal(run.memory, null);
});

Deno.test("an unknown team is an error naming the teams", async () => {
  await using h = await harness([], { catalog });
  const run = await h.engine.runTeam("nope", "t", { session: h.store.create("lead") });
  assert.deepEqual(run.errors.map((e) => e.message), [
    'unknown team "nope"; available teams: broken, trio',
  ]);
});

Deno.test("a team's type models pass the approval gate once, before the first stage", async () => {
  const home = await Deno.makeTempDir();
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    const typed = catalogOf({
      types: { alpha: { system_prompt: "ALPHA" }, beta: { system_prompt: "BETA", model: "big" } },
      teams: { duo: ["alpha", "beta"] },
    });
    await using h = await harness(stages({ alpha: "a", beta: "b" }), { catalog: typed });
    (h.runtime as unknown as { config: Record<string, unknown> }).config.base_url = h.fake.url;
    const refused = await h.engine.runTeam("duo", "t", { session: h.store.create("lead") });
    assert.equal(refused.status, "error");
    assert.match(refused.errors[0].message, /^model not approved: generic\/big/);
    assert.equal(h.fake.requests.length, 0);
    (h.runtime as unknown as { init: Record<string, unknown> }).init.approveModel = true;
    const run = await h.engine.runTeam("duo", "t", { session: h.store.create("lead2") });
    assert.deepEqual(run.stages.map((s) => s.status), ["ok", "ok"]);
    assert.equal((h.fake.requests[1].body as Body).model, "big");
  } finally {
    if (oldHome === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("an untrusted worktree's team memory is never written through a symlinked .svc", async () => {
  const outside = await Deno.makeTempDir();
  await using h = await harness(stages({ alpha: "a", beta: "b", gamma: "c" }), { catalog });
  // Sessions stay in memory here; only the team folder leads outside.
  await Deno.mkdir(`${h.worktree}/.svc`, { recursive: true });
  await Deno.symlink(outside, `${h.worktree}/.svc/teams`);
  // Without svc, a write through the link lands outside the worktree:
  await Deno.mkdir(`${h.worktree}/.svc/teams/probe`);
  await Deno.writeTextFile(`${h.worktree}/.svc/teams/probe/x`, "x");
  assert.equal(await Deno.readTextFile(`${outside}/probe/x`), "x");
  const { MemorySession } = await import("../../src/session/memory.ts");
  const run = await h.engine.runTeam("trio", "t", { session: new MemorySession("lead") });
  assert.equal(run.memory, null);
  assert.equal(run.errors.at(-1)?.code, "team_memory");
  assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["probe"]);
  await Deno.remove(outside, { recursive: true });
});
