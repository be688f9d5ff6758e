import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startServe, writeConfig } from "./_serve.ts";
import { JOB_ROUTES } from "../../src/http/jobs_routes.ts";

Deno.test("svc serve: operators list, show and approve a proposed job over HTTP", async (t) => {
  await using box = await sandbox();
  await writeConfig(box.worktree, "http://127.0.0.1:9"); // never called: no turn runs here
  const added = await svc(["jobs", "add", "nightly", "--prompt", "check", "--every", "3600"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.equal(added.code, 0, added.stderr);
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  const call = async (method: string, path: string) => {
    const res = await served.fetch(`${served.url}${path}`, {
      method,
      ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: "{}" } : {}),
    });
    return { status: res.status, body: await res.json() };
  };
  try {
    await t.step("GET /jobs and /jobs/{name} show the proposed job", async () => {
      const status = await call("GET", "/jobs");
      assert.equal(status.status, 200);
      assert.match(JSON.stringify(status.body), /nightly/);
      const show = await call("GET", "/jobs/nightly");
      assert.deepEqual(
        [show.status, show.body.name, show.body.approval, show.body.shown_state],
        [200, "nightly", "none", "proposed"],
      );
    });
    await t.step("POST /jobs/{name}/approve binds the approval to the server's user", async () => {
      const approved = await call("POST", "/jobs/nightly/approve");
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.deepEqual(
        [approved.body.name, approved.body.approval, approved.body.state],
        ["nightly", "approved", "will_run"],
      );
      const grants = await Deno.readTextFile(`${box.home}/.config/svc/job_approvals.json`);
      assert.match(grants, /nightly/);
      const cli = await svc(["jobs", "show", "nightly", "--json"], {
        cwd: box.worktree,
        env: box.env,
      });
      assert.deepEqual(JSON.parse(cli.stdout).approval, approved.body.approval);
      const stopped = await call("POST", "/jobs/nightly/stop");
      assert.equal(stopped.status, 200);
      assert.equal((await call("POST", "/jobs/nightly/reject")).status, 200);
    });
    await t.step(
      "refusals: no token, unknown or hostile names, wrong method, an unapproved run",
      async () => {
        const anonymous = await fetch(`${served.url}/jobs`);
        assert.equal(anonymous.status, 401);
        await anonymous.body?.cancel();
        assert.equal((await call("GET", "/jobs/nope")).status, 404);
        assert.equal((await call("POST", "/jobs/nope/approve")).status, 404);
        assert.equal((await call("GET", "/jobs/..%2F..%2Fetc")).status, 400);
        assert.equal((await call("GET", "/jobs/nightly/approve")).status, 405);
        assert.equal((await call("POST", "/jobs/nightly/explode")).status, 404);
        const run = await call("POST", "/jobs/nightly/run"); // rejected above: not approved
        assert.deepEqual([run.status, run.body.error], [
          409,
          'job "nightly" may not run: it is not approved; approve it first ' +
          "(svc jobs approve nightly, or POST /jobs/nightly/approve)",
        ]);
      },
    );
    await t.step("the OpenAPI document lists the job routes this server answers", async () => {
      const doc = (await call("GET", "/openapi.json")).body;
      for (const [path, methods] of Object.entries(JOB_ROUTES)) {
        for (const method of methods) assert.ok(doc.paths[path]?.[method.toLowerCase()], path);
      }
    });
  } finally {
    await served.stop();
  }
});
