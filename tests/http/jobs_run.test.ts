// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { addJob } from "../../src/jobs/manage.ts";
import type { JobDefinition } from "../../src/jobs/schema.ts";
import type { Reply } from "../_support/fake_provider.ts";
import { app } from "./_app.ts";

/** HOME set to a temp folder (this user's job approvals) until disposed. */
async function tempHome(): Promise<AsyncDisposable> {
  const home = await Deno.makeTempDir({ prefix: "svc-serve-home-" });
  const old = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  return {
    async [Symbol.asyncDispose]() {
      if (old === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", old);
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** Streamed requests (the runs' turns) answer `answer N`; memory summaries `memory`. */
function answers(stall = false): (body: Record<string, unknown>) => Reply {
  let n = 0;
  return (body) =>
    body.stream === false
      ? { text: "memory" }
      : stall && n++ === 0
      ? { stall: true, text: "partial" }
      : { text: `answer ${++n}` };
}

const job = (name: string, extra: Partial<JobDefinition> = {}) =>
  ({ name, prompt: `Do ${name}`, task_file: `.svc/jobs/${name}.md`, ...extra }) as JobDefinition;

/** GET /jobs/{name} until the run is no longer executing. */
async function settled(a: Awaited<ReturnType<typeof app>>, name: string): Promise<any> {
  while (true) {
    const shown = await (await a.call("GET", `/jobs/${name}`)).json();
    if (shown.state !== "executing") return shown;
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("POST /jobs/{name}/run refuses a job that is not approved, then runs it once approved (202, polled to verified)", async () => {
  await using _home = await tempHome();
  await using a = await app(answers(), { jobs: true });
  await addJob(a.worktree, job("nightly"), { auto: false });
  const refused = await a.call("POST", "/jobs/nightly/run", { json: {} });
  assert.deepEqual([refused.status, await refused.json()], [409, {
    error: 'job "nightly" may not run: it is not approved; approve it first ' +
      "(svc jobs approve nightly, or POST /jobs/nightly/approve)",
  }]);
  const before = await (await a.call("GET", "/jobs/nightly")).json();
  assert.deepEqual([before.shown_state, before.runs, before.history], ["proposed", 0, []]);
  assert.equal(a.fake.requests.length, 0, "nothing ran");

  assert.equal((await a.call("POST", "/jobs/nightly/approve", { json: {} })).status, 200);
  const started = await a.call("POST", "/jobs/nightly/run", { json: {} });
  assert.equal(started.status, 202);
  assert.equal(started.headers.get("location"), "/jobs/nightly");
  const body = await started.json();
  assert.match(body.session, /^job_\d{8}_\d{6}_nightly$/);
  assert.deepEqual(body, {
    name: "nightly",
    run: 1,
    session: body.session,
    state: "executing",
    location: "/jobs/nightly",
  });
  const shown = await settled(a, "nightly");
  assert.deepEqual(
    [shown.state, shown.runs, shown.fired, shown.last_output, shown.last_session],
    ["verified", 1, { ok: 1, failed: 0 }, "answer 1", body.session],
  );
  assert.deepEqual(shown.history.map((h: any) => [h.run, h.attempt, h.status, h.by]), [
    [1, 1, "ok", "manual"],
  ]);
  assert.equal((await a.store.read(body.session)).messages.at(-1)?.content, "answer 1");
});

Deno.test("POST /jobs/{name}/run uses a one-run approval, then refuses until the next approve; unknown jobs are 404", async () => {
  await using _home = await tempHome();
  await using a = await app(answers(), { jobs: true });
  await addJob(a.worktree, job("gated", { require_approval: true }), { auto: false });
  assert.equal((await a.call("POST", "/jobs/gated/approve", { json: {} })).status, 200);
  const first = await a.call("POST", "/jobs/gated/run", { json: {} });
  assert.equal(first.status, 202, await first.clone().text());
  assert.equal((await first.json()).run, 1);
  assert.equal((await settled(a, "gated")).shown_state, "waiting_approval");
  const again = await a.call("POST", "/jobs/gated/run", { json: {} });
  assert.deepEqual([again.status, (await again.json()).error], [
    409,
    'job "gated" may not run: it waits for approval of its next run; approve it first ' +
    "(svc jobs approve gated, or POST /jobs/gated/approve)",
  ]);
  const unknown = await a.call("POST", "/jobs/nope/run", { json: {} });
  assert.deepEqual([unknown.status, await unknown.json()], [404, { error: 'no job named "nope"' }]);
  const wrong = await a.call("GET", "/jobs/gated/run");
  assert.equal(wrong.status, 405);
  await wrong.body?.cancel();
});

Deno.test("POST /jobs/{name}/run refuses strangers, foreign pages and hostile names, and runs nothing", async () => {
  await using _home = await tempHome();
  await using a = await app(answers(), { jobs: true });
  await addJob(a.worktree, job("nightly"), { auto: true });
  const cases: Array<[Response, number]> = [
    [await a.call("POST", "/jobs/nightly/run", { json: {}, auth: false }), 401],
    [
      await a.call("POST", "/jobs/nightly/run", {
        json: {},
        headers: { origin: "http://evil.example" },
      }),
      403,
    ],
    [
      await a.call("POST", "/jobs/nightly/run", {
        json: {},
        headers: { "sec-fetch-site": "cross-site" },
      }),
      403,
    ],
    [await a.call("POST", "/jobs/..%2F..%2Fetc/run", { json: {} }), 400],
    [await a.call("POST", "/jobs/nightly%00/run", { json: {} }), 400],
    [await a.call("POST", "/jobs/nightly/run/again", { json: {} }), 404],
  ];
  for (const [res, status] of cases) assert.equal(res.status, status, await res.text());
  const shown = await (await a.call("GET", "/jobs/nightly")).json();
  assert.deepEqual([shown.runs, shown.history], [0, []]);
  assert.equal(a.fake.requests.length, 0);
});

Deno.test("a job run started over HTTP refuses a second run and the deletion of its session while it runs, and shutting the server down cancels and records it", async () => {
  await using _home = await tempHome();
  await using a = await app(answers(true), { jobs: true });
  await addJob(a.worktree, job("slow"), { auto: true });
  const started = await a.call("POST", "/jobs/slow/run", { json: {} });
  assert.equal(started.status, 202);
  const { session } = await started.json();
  while (!a.fake.requests.length) await new Promise((r) => setTimeout(r, 5));
  const second = await a.call("POST", "/jobs/slow/run", { json: {} });
  assert.equal(second.status, 409);
  assert.match((await second.json()).error, /^job "slow" is executing already/);
  const deleted = await a.call("DELETE", `/sessions/${session}`);
  assert.deepEqual([deleted.status, await deleted.json()], [409, {
    error: `session ${session} is the session of job slow's run in progress; stop the run ` +
      "first (POST /jobs/slow/stop) or wait for it to end, and delete it then",
  }]);
  a.shutdown.abort();
  const shown = await settled(a, "slow");
  assert.deepEqual(
    [shown.state, shown.history.map((h: any) => h.status), shown.last_session],
    ["failed", ["cancelled"], session],
  );
  const late = await a.call("POST", "/jobs/slow/run", { json: {} });
  assert.equal(late.status, 409);
});
