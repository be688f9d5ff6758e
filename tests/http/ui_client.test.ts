// deno-lint-ignore-file no-explicit-any
/**
 * Issue 31's "done when": a hand-written fetch client that knows the API only from the served
 * GET /openapi.json (every path and method it uses must be documented there, request bodies and
 * JSON answers must validate against the documented schemas, streamed lines against
 * docs/schema/stream-json.v1.json) drives `svc serve` over loopback with the token: a two-round
 * tool turn streamed with its text deltas, an ask-gated call approved from the stream, a long
 * turn aborted, sessions listed and deleted, and a gated job approved and run.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { createParser } from "eventsource-parser";
import { echoTool, harness } from "../_support/engine.ts";
import type { Reply } from "../_support/fake_provider.ts";
import { bearerChecker, createServeApp, listen } from "../../src/http/mod.ts";
import { serveJobs } from "../../src/cli/serve_jobs.ts";
import { addJob } from "../../src/jobs/manage.ts";
import type { JobDefinition } from "../../src/jobs/schema.ts";

const TOKEN = "ui-client-token-0123456789abcdef";
const LINES = JSON.parse(
  await Deno.readTextFile(new URL("../../docs/schema/stream-json.v1.json", import.meta.url)),
);
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validLine = ajv.compile(LINES);

/** An API client built from the server's OpenAPI document alone. */
class Client {
  #compiled = new Map<unknown, ReturnType<typeof ajv.compile>>();
  private constructor(readonly base: string, readonly doc: any) {}

  static async connect(base: string): Promise<Client> {
    const res = await fetch(`${base}/openapi.json`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.equal(doc.openapi, "3.1.0");
    return new Client(base, doc);
  }

  /** The documented operation, or a failed assertion naming what the document lacks. */
  operation(method: string, template: string): any {
    const found = this.doc.paths[template]?.[method.toLowerCase()];
    assert.ok(found, `${method} ${template} is not in the served OpenAPI document`);
    return found;
  }

  /** Checks `value` against a schema of the document (its `$ref`s resolve in the document). */
  check(schema: unknown, value: unknown, what: string): void {
    let validate = this.#compiled.get(schema);
    if (!validate) {
      validate = ajv.compile({ ...(schema as object), components: this.doc.components });
      this.#compiled.set(schema, validate);
    }
    assert.ok(validate(value), `${what}: ${JSON.stringify(validate.errors)}`);
  }

  /** Sends one request; JSON answers are checked against the documented answer of their status. */
  async call(
    method: string,
    template: string,
    options: { params?: Record<string, string>; body?: unknown; accept?: string } = {},
  ): Promise<{ status: number; headers: Headers; body: any; response: Response }> {
    const op = this.operation(method, template);
    const path = template.replace(/\{(\w+)\}/g, (_, name) => {
      const value = options.params?.[name];
      assert.ok(value !== undefined, `${template} needs ${name}`);
      return encodeURIComponent(value);
    });
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
    if (options.accept) headers.accept = options.accept;
    let body: string | undefined;
    if (options.body !== undefined) {
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      assert.ok(schema, `${method} ${template} documents no request body`);
      this.check(schema, options.body, `request body of ${method} ${template}`);
      body = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    const response = await fetch(`${this.base}${path}`, { method, headers, body });
    const documented = op.responses[String(response.status)];
    assert.ok(documented, `${method} ${template} answered ${response.status}, not documented`);
    const type = response.headers.get("content-type") ?? "";
    if (!type.startsWith("application/json")) {
      return { status: response.status, headers: response.headers, body: null, response };
    }
    const value = await response.json();
    const schema = documented.content?.["application/json"]?.schema;
    assert.ok(schema, `${method} ${template} ${response.status} documents no JSON body`);
    this.check(schema, value, `${method} ${template} ${response.status}`);
    return { status: response.status, headers: response.headers, body: value, response };
  }

  /** A streamed /chat turn: each event's line (checked against the stream-json schema) as it comes. */
  async turn(request: Record<string, unknown>): Promise<Turn> {
    const answer = await this.call("POST", "/chat", {
      body: { ...request, stream: true },
      accept: "text/event-stream",
    });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get("content-type")!, /^text\/event-stream/);
    return new Turn(answer.response);
  }
}

/** The lines of one streamed turn as they arrive. */
class Turn {
  lines: any[] = [];
  done: Promise<any[]>;
  #waiting: Array<() => void> = [];

  constructor(response: Response) {
    const parser = createParser({
      onEvent: (event) => {
        const line = JSON.parse(event.data);
        assert.equal(event.event, line.type);
        assert.ok(validLine(line), `${event.data}: ${JSON.stringify(validLine.errors)}`);
        this.lines.push(line);
        for (const wake of this.#waiting.splice(0)) wake();
      },
    });
    this.done = (async () => {
      for await (const text of response.body!.pipeThrough(new TextDecoderStream())) {
        parser.feed(text);
      }
      return this.lines;
    })();
  }

  /** The first line `match` accepts, now or once it arrives. */
  async find(match: (line: any) => boolean): Promise<any> {
    while (!this.lines.some(match)) await new Promise<void>((r) => this.#waiting.push(r));
    return this.lines.find(match);
  }
}

/** The kinds of lines: `type`, or the subtype of system lines. */
const kinds = (lines: any[]) => lines.map((l) => l.type === "system" ? l.subtype : l.type);

/** Requests in the order the scenario makes them; memory summaries (not streamed) apart. */
const SCRIPT: Reply[] = [
  { tool_calls: [{ name: "lookup", arguments: { text: "notes" }, id: "call_1" }] },
  { text: "The notes say hello twice.", chunkSize: 5 },
  { tool_calls: [{ name: "writer", arguments: { text: "draft" }, id: "call_2" }] },
  { text: "Written." },
  { stall: true, text: "thinking for a long" },
  { text: "Digest: all quiet." },
];

Deno.test("a client written against GET /openapi.json streams, approves, aborts, manages sessions and runs a gated job over loopback", async (t) => {
  const home = await Deno.makeTempDir({ prefix: "svc-ui-home-" });
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home); // this user's job approvals
  let streamed = 0;
  await using h = await harness(
    (body) => body.stream === false ? { text: "memory" } : SCRIPT[streamed++],
    { tools: [echoTool("lookup", "read"), echoTool("writer", "edit")] },
  );
  const served = await createServeApp(h.runtime, { jobs: serveJobs(h.runtime) });
  let handler = (_: Request) => Promise.resolve(new Response(null, { status: 503 }));
  const server = await listen((request) => handler(request), { hostname: "127.0.0.1", port: 0 });
  handler = served.handler({
    hostname: "127.0.0.1",
    port: server.port,
    checkToken: bearerChecker(TOKEN),
  });
  const base = `http://127.0.0.1:${server.port}`;
  try {
    const refused = await fetch(`${base}/openapi.json`);
    assert.equal(refused.status, 401, "the document itself needs the token");
    await refused.body?.cancel();
    const api = await Client.connect(base);

    await t.step("streams a two-round tool turn with its text deltas", async () => {
      const turn = await api.turn({
        prompt: "Read the notes",
        session_id: "ui",
        include_partial_messages: true,
      });
      const lines = await turn.done;
      assert.deepEqual(kinds(lines).filter((k) => k !== "svc_event" && k !== "stream_event"), [
        "init",
        "assistant",
        "user",
        "assistant",
        "result",
      ]);
      const [init] = lines;
      assert.deepEqual([init.session_id, init.svc.approvals, init.permissionMode], [
        "ui",
        "default",
        "dontAsk",
      ]);
      const call = lines.find((l) => l.type === "assistant").message.content[0];
      assert.deepEqual([call.type, call.name, call.input], ["tool_use", "lookup", {
        text: "notes",
      }]);
      const result = lines.find((l) => l.type === "user").message.content[0];
      assert.deepEqual([result.content, result.is_error], ['echo: {"text":"notes"}', false]);
      const deltas = lines.filter((l) => l.type === "stream_event");
      assert.ok(deltas.length >= 5, "the answer arrives in pieces");
      assert.equal(deltas.map((l) => l.event.delta.text).join(""), "The notes say hello twice.");
      const answer = lines.findLastIndex((l) => l.type === "assistant");
      assert.ok(lines.indexOf(deltas.at(-1)) < answer, "deltas come before the complete message");
      const end = lines.at(-1);
      assert.deepEqual([end.result, end.num_turns, end.is_error, end.svc.status], [
        "The notes say hello twice.",
        2,
        false,
        "ok",
      ]);
    });

    await t.step("approves an ask-gated call from the stream", async () => {
      const turn = await api.turn({
        prompt: "Write a draft",
        session_id: "ui",
        approvals: "client",
      });
      const init = await turn.find((l) => l.subtype === "init");
      assert.deepEqual([init.svc.approvals, init.permissionMode], ["client", "default"]);
      const asked = (await turn.find((l) => l.event?.type === "approval_request")).event;
      assert.deepEqual([asked.tool, asked.args, asked.session], [
        "writer",
        { text: "draft" },
        "ui",
      ]);
      const pending = await api.call("GET", "/approvals");
      assert.deepEqual(pending.body.approvals.map((p: any) => p.id), [asked.id]);
      const answered = await api.call("POST", "/approvals/{id}", {
        params: { id: asked.id },
        body: { answer: "once", session_id: "ui" },
      });
      assert.deepEqual([answered.status, answered.body], [200, { id: asked.id, answer: "once" }]);
      const lines = await turn.done;
      const ran = lines.find((l) => l.type === "user");
      assert.deepEqual([ran.message.content[0].content, ran.svc.decision], [
        'echo: {"text":"draft"}',
        "ask",
      ]);
      assert.equal(lines.at(-1).result, "Written.");
      const session = await api.call("GET", "/sessions/{id}", { params: { id: "ui" } });
      assert.deepEqual(session.body.permissions.map((p: any) => [p.tool, p.outcome, p.by]), [
        ["lookup", "allowed", "policy"],
        ["writer", "approved", "client"],
      ]);
      assert.equal(session.body.total_messages, 8, "two turns of user, call, result, answer");
    });

    await t.step("aborts a long turn", async () => {
      const turn = await api.turn({ prompt: "Think hard", session_id: "long" });
      await turn.find((l) => l.subtype === "init");
      while (streamed < 5) await new Promise((r) => setTimeout(r, 5));
      const aborted = await api.call("POST", "/sessions/{id}/abort", { params: { id: "long" } });
      assert.deepEqual([aborted.status, aborted.body.aborted], [200, "running"]);
      const end = (await turn.done).at(-1);
      assert.deepEqual([end.type, end.is_error, end.svc.status], ["result", true, "cancelled"]);
      const again = await api.call("POST", "/sessions/{id}/abort", { params: { id: "long" } });
      assert.deepEqual([again.status, again.body], [409, {
        error: "nothing runs in session long",
      }]);
    });

    await t.step("lists and deletes sessions", async () => {
      assert.deepEqual((await api.call("GET", "/sessions")).body, { sessions: ["long", "ui"] });
      const deleted = await api.call("DELETE", "/sessions/{id}", { params: { id: "long" } });
      assert.deepEqual([deleted.status, deleted.body.deleted], [200, "long"]);
      assert.deepEqual((await api.call("GET", "/sessions")).body, { sessions: ["ui"] });
      const gone = await api.call("GET", "/sessions/{id}", { params: { id: "long" } });
      assert.equal(gone.status, 404);
    });

    await t.step("approves a gated job and runs it", async () => {
      await addJob(h.worktree, {
        name: "digest",
        prompt: "Summarize the day",
        task_file: ".svc/jobs/digest.md",
        require_approval: true,
      } as JobDefinition, { auto: false });
      const listed = await api.call("GET", "/jobs");
      assert.match(JSON.stringify(listed.body), /digest/);
      const early = await api.call("POST", "/jobs/{name}/run", { params: { name: "digest" } });
      assert.equal(early.status, 409);
      assert.match(early.body.error, /may not run: it is not approved; approve it first/);
      const approved = await api.call("POST", "/jobs/{name}/approve", {
        params: { name: "digest" },
      });
      assert.deepEqual([approved.status, approved.body.approval], [200, "armed"]);
      const run = await api.call("POST", "/jobs/{name}/run", { params: { name: "digest" } });
      assert.deepEqual([run.status, run.body.run, run.headers.get("location")], [
        202,
        1,
        "/jobs/digest",
      ]);
      let job = (await api.call("GET", "/jobs/{name}", { params: { name: "digest" } })).body;
      while (job.state === "executing") {
        await new Promise((r) => setTimeout(r, 10));
        job = (await api.call("GET", "/jobs/{name}", { params: { name: "digest" } })).body;
      }
      assert.deepEqual([job.last_output, job.last_session, job.shown_state], [
        "Digest: all quiet.",
        run.body.session,
        "waiting_approval",
      ]);
    });
  } finally {
    await served.close();
    await server.shutdown();
    if (oldHome === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
  }
});
