/** The `delegate` tool: sub-agents of agent types, against the scripted provider, sessions on disk. */
import assert from "node:assert/strict";
import type { AgentType } from "../../src/catalog/types.ts";
import { MAX_DELEGATION_DEPTH, subAgentPermissions } from "../../src/engine/sub_agent.ts";
import type { Tool } from "../../src/tool/types.ts";
import { catalogOf } from "../_support/catalog.ts";
import { echoTool, harness, readStored } from "../_support/engine.ts";

type Body = { messages: Array<{ role: string; content: string }>; tools?: unknown[] };

const systemOf = (body: Body) =>
  body.messages.filter((m) => m.role === "system").map((m) => m.content).join("\n");
const toolNames = (body: Body) =>
  ((body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

const researcher = catalogOf({
  types: { researcher: { system_prompt: "RESEARCHER: find facts.", description: "finds facts" } },
});

Deno.test("delegate runs the type in a sub_ session linked both ways and returns its answer", async () => {
  await using h = await harness((body, i) => {
    if (systemOf(body as Body).includes("RESEARCHER")) return { text: "the answer is 42" };
    return i === 0
      ? { tool_calls: [{ name: "delegate", arguments: { type: "researcher", task: "find it" } }] }
      : { text: "lead: 42" };
  }, { catalog: researcher });
  const lead = h.store.create("lead");
  const result = await h.engine.runTurn("go", { session: lead });
  assert.equal(result.status, "ok");
  assert.equal(result.content, "lead: 42");
  assert.deepEqual(result.tool_calls.map((c) => [c.name, c.decision, c.ok]), [
    ["delegate", "allow", true],
  ]);
  // The sub-agent got the type's prompt and the task as its user message.
  const sub = h.fake.requests[1].body as Body;
  assert.match(systemOf(sub), /^RESEARCHER: find facts\./m);
  assert.deepEqual(sub.messages.filter((m) => m.role === "user").map((m) => m.content), [
    "find it",
  ]);
  // The lead saw the answer as the tool result.
  const fed = (h.fake.requests[2].body as Body).messages.at(-1)!;
  assert.deepEqual([fed.role, fed.content], ["tool", "the answer is 42"]);
  const stored = await readStored(h, "lead");
  assert.equal(stored.sub_sessions.length, 1);
  const [name] = stored.sub_sessions;
  assert.match(name, /^sub_\d{8}_\d{6}_lead$/);
  const child = await readStored(h, name);
  assert.equal(child.parent_id, "lead");
  assert.deepEqual(
    child.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
    [
      ["user", "find it"],
      ["assistant", "the answer is 42"],
    ],
  );
});

Deno.test("an unknown type is a tool error naming the available types", async () => {
  await using h = await harness([
    { tool_calls: [{ name: "delegate", arguments: { type: "wizard", task: "x" } }] },
    { text: "ok" },
  ], { catalog: researcher });
  const result = await h.engine.runTurn("go", { session: h.store.create("t") });
  assert.equal(result.tool_calls[0].ok, false);
  assert.equal(
    (h.fake.requests[1].body as Body).messages.at(-1)!.content,
    'Error: unknown type "wizard"; available types: researcher',
  );
  assert.equal(h.fake.requests.length, 2);
});

Deno.test("a type without edit permission cannot write through its sub-agent", async () => {
  const written: string[] = [];
  const writer: Tool = {
    ...echoTool("writer", "edit"),
    run: (args) => {
      written.push(String(args.text));
      return Promise.resolve("written");
    },
  };
  await using h = await harness((body, i) => {
    if (systemOf(body as Body).includes("REVIEWER")) {
      return (body as Body).messages.some((m) => m.role === "tool")
        ? { text: "reviewed" }
        : { tool_calls: [{ name: "writer", arguments: { text: "sneaky" } }] };
    }
    return i === 0
      ? { tool_calls: [{ name: "delegate", arguments: { type: "reviewer", task: "fix it" } }] }
      : { text: "done" };
  }, {
    tools: [writer],
    config: { tool_permission: { edit: "allow" } },
    catalog: catalogOf({
      types: { reviewer: { system_prompt: "REVIEWER", tool_permission: { edit: "deny" } } },
    }),
  });
  const lead = h.store.create("lead");
  await h.engine.runTurn("go", { session: lead });
  assert.deepEqual(written, []);
  const sub = h.fake.requests[1].body as Body;
  assert.deepEqual(toolNames(sub), ["ask", "delegate"]);
  const child = await readStored(h, (await readStored(h, "lead")).sub_sessions[0]);
  assert.deepEqual(
    child.permissions.map((p: { tool: string; outcome: string }) => [p.tool, p.outcome]),
    [["writer", "denied"]],
  );
});

Deno.test("ask-gated tools are denied in a sub-agent, which runs headless", async () => {
  let ran = false;
  const shell: Tool = {
    ...echoTool("shell", "bash"),
    run: () => (ran = true, Promise.resolve("x")),
  };
  await using h = await harness((body, i) => {
    if (systemOf(body as Body).includes("RESEARCHER")) {
      return (body as Body).messages.some((m) => m.role === "tool")
        ? { text: "could not run it" }
        : { tool_calls: [{ name: "shell", arguments: { text: "ls" } }] };
    }
    return i === 0
      ? { tool_calls: [{ name: "delegate", arguments: { type: "researcher", task: "ls" } }] }
      : { text: "done" };
  }, {
    tools: [shell],
    config: { tool_permission: { bash: "ask" } },
    catalog: researcher,
    // The lead's own approver would approve; a sub-agent never uses it.
    approver: () => Promise.resolve({ answer: "once", by: "user" }),
  });
  const result = await h.engine.runTurn("go", { session: h.store.create("lead") });
  assert.equal(ran, false);
  assert.equal(result.content, "done");
  const fed = (h.fake.requests[2].body as Body).messages.at(-1)!;
  assert.equal(fed.content, "[cancelled]");
});

Deno.test("a sub-agent's result without prose is a summary of its activity", async () => {
  await using h = await harness((body, i) => {
    if (systemOf(body as Body).includes("RESEARCHER")) {
      return (body as Body).messages.some((m) => m.role === "tool")
        ? { text: "" }
        : { tool_calls: [{ name: "echo", arguments: { text: "hi" } }] };
    }
    return i === 0
      ? { tool_calls: [{ name: "delegate", arguments: { type: "researcher", task: "t" } }] }
      : { text: "done" };
  }, { catalog: researcher });
  const result = await h.engine.runTurn("go", { session: h.store.create("lead") });
  const sub = (await readStored(h, "lead")).sub_sessions[0];
  const fed = (h.fake.requests.at(-1)!.body as Body).messages.at(-1)!.content;
  assert.equal(
    fed,
    `The researcher sub-agent (session ${sub}) gave no final answer; status empty.\n` +
      'Its tool calls:\n- echo {"text":"hi"}: ok',
  );
  assert.equal(result.tool_calls[0].ok, false);
});

Deno.test("skills named by a type are injected as a Skills section; a missing one is skipped", async () => {
  await using h = await harness((body, i) => {
    if (systemOf(body as Body).includes("WRITER")) return { text: "written" };
    return i === 0
      ? { tool_calls: [{ name: "delegate", arguments: { type: "writer", task: "t" } }] }
      : { text: "done" };
  }, {
    catalog: catalogOf({
      types: { writer: { system_prompt: "WRITER", skills: ["style", "missing", "tone"] } },
      skills: { style: "Short sentences.\n", tone: "Be kind." },
    }),
  });
  await h.engine.runTurn("go", { session: h.store.create("lead") });
  const system = (h.fake.requests[1].body as Body).messages[0].content;
  assert.equal(
    system.split("\n\nEnvironment:\n")[0],
    "WRITER\n\n## Skills\n\n### style\n\nShort sentences.\n\n### tone\n\nBe kind.",
  );
});

Deno.test("a sub-agent asks its lead: the lead's model sees the delegated task", async () => {
  await using h = await harness((body, i) => {
    const b = body as Body & { stream?: boolean };
    if (b.stream === false) return { text: "use metric" };
    if (systemOf(b).includes("RESEARCHER")) {
      return b.messages.some((m) => m.role === "tool")
        ? { text: "answered in metric" }
        : { tool_calls: [{ name: "ask", arguments: { question: "units?", target: "lead" } }] };
    }
    return i === 0
      ? { tool_calls: [{ name: "delegate", arguments: { type: "researcher", task: "measure" } }] }
      : { text: "done" };
  }, { catalog: researcher });
  await h.engine.runTurn("go", { session: h.store.create("lead") });
  const consult = h.fake.requests.find((r) => (r.body as { stream?: boolean }).stream === false)!;
  assert.match(
    (consult.body as Body).messages[1].content,
    /^Delegated task:\nmeasure\n\nQuestion: units\?/,
  );
  const child = await readStored(h, (await readStored(h, "lead")).sub_sessions[0]);
  const tool = child.messages.find((m: { role: string }) => m.role === "tool");
  assert.equal(tool.content, "use metric");
});

Deno.test("a sub-agent's question to the human is prefixed with its session name", async () => {
  const asked: string[] = [];
  await using h = await harness((body, i) => {
    if (systemOf(body as Body).includes("RESEARCHER")) {
      return (body as Body).messages.some((m) => m.role === "tool")
        ? { text: "ok" }
        : { tool_calls: [{ name: "ask", arguments: { question: "which file?" } }] };
    }
    return i === 0
      ? { tool_calls: [{ name: "delegate", arguments: { type: "researcher", task: "t" } }] }
      : { text: "done" };
  }, {
    catalog: researcher,
    engine: {
      askHuman: (request) => {
        asked.push(request.question);
        return Promise.resolve("a.txt");
      },
    },
  });
  await h.engine.runTurn("go", { session: h.store.create("lead") });
  const sub = (await readStored(h, "lead")).sub_sessions[0];
  assert.deepEqual(asked, [`[${sub}] which file?`]);
});

Deno.test("a lead in plan mode keeps its sub-agents in plan mode", async () => {
  await using h = await harness((body, i) => {
    if (systemOf(body as Body).includes("PROGRAMMER")) return { text: "planned only" };
    return i === 0
      ? { tool_calls: [{ name: "delegate", arguments: { type: "programmer", task: "t" } }] }
      : { text: "done" };
  }, {
    tools: [echoTool("writer", "edit"), echoTool("reader", "read")],
    config: { mode: "plan" },
    catalog: catalogOf({
      types: { programmer: { system_prompt: "PROGRAMMER", tool_permission: { edit: "allow" } } },
    }),
  });
  await h.engine.runTurn("go", { session: h.store.create("lead") });
  const sub = h.fake.requests[1].body as Body;
  assert.deepEqual(toolNames(sub), ["ask", "delegate", "reader"]);
  assert.match(systemOf(sub), /plan mode/);
});

Deno.test("delegation nests to the depth limit, where delegate is no longer offered", async () => {
  const depths: string[][] = [];
  await using h = await harness((body) => {
    const b = body as Body;
    const names = toolNames(b);
    const isSub = systemOf(b).includes("NESTER");
    if (!b.messages.some((m) => m.role === "tool") && names.includes("delegate")) {
      depths.push(names);
      return { tool_calls: [{ name: "delegate", arguments: { type: "nester", task: "deeper" } }] };
    }
    if (!b.messages.some((m) => m.role === "tool")) depths.push(names);
    return { text: isSub ? "bottom" : "top" };
  }, { catalog: catalogOf({ types: { nester: { system_prompt: "NESTER" } } }) });
  const result = await h.engine.runTurn("go", { session: h.store.create("lead") });
  assert.equal(result.content, "top");
  assert.equal(MAX_DELEGATION_DEPTH, 2);
  assert.deepEqual(depths, [
    ["ask", "delegate", "echo"],
    ["ask", "delegate", "echo"],
    ["ask", "echo"],
  ]);
});

Deno.test("two delegations at once run one after the other", async () => {
  const spans: Array<[string, number, number]> = [];
  await using h = await harness((body) => {
    const task = (body as Body).messages.find((m) => m.role === "user")!.content;
    return { text: `did ${task}`, delayMs: 100 };
  }, { catalog: researcher });
  const session = h.store.create("lead");
  const signal = new AbortController().signal;
  const timed = async (task: string) => {
    const start = performance.now();
    const out = await h.engine.delegate("researcher", task, { session, signal });
    spans.push([out.content, start, performance.now()]);
  };
  await Promise.all([timed("one"), timed("two")]);
  assert.deepEqual(spans.map((s) => s[0]).sort(), ["did one", "did two"]);
  const [a, b] = spans.sort((x, y) => x[2] - y[2]);
  assert.ok(b[2] - a[2] >= 90, "the second sub-agent ran while the first was running");
});

Deno.test("an untrusted local type's permissions only tighten the lead's", () => {
  const type: AgentType = {
    name: "t",
    system_prompt: "",
    tool_permission: { edit: "allow" },
    tighten: { bash: "allow", web: "deny", read: "ask" },
    layer: "local",
    layers: ["bundled", "local"],
  };
  assert.deepEqual(subAgentPermissions({ bash: "ask", web: "allow" }, type, { depth: 1 }), {
    bash: "ask",
    web: "deny",
    edit: "allow",
    read: "ask",
  });
  assert.equal(subAgentPermissions({}, type, { depth: MAX_DELEGATION_DEPTH }).delegate, "deny");
});

Deno.test("a type's model is refused headless and accepted with approveModel", async () => {
  const home = await Deno.makeTempDir();
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    const catalog = catalogOf({
      types: { researcher: { system_prompt: "RESEARCHER", model: "typed-model" } },
    });
    const script = (body: Record<string, unknown>) => {
      if (systemOf(body as Body).includes("RESEARCHER")) return { text: `sub via ${body.model}` };
      return !(body as Body).messages.some((m) => m.role === "tool")
        ? { tool_calls: [{ name: "delegate", arguments: { type: "researcher", task: "t" } }] }
        : { text: "done" };
    };
    {
      await using h = await harness(script, { catalog });
      (h.runtime as unknown as { config: Record<string, unknown> }).config.base_url = h.fake.url;
      const result = await h.engine.runTurn("go", { session: h.store.create("lead") });
      // The refusal is the sub-agent's provider error inside the lead's turn, not a setup failure.
      assert.equal(result.status, "ok");
      const fed = (h.fake.requests[1].body as Body).messages.at(-1)!.content;
      assert.match(
        fed,
        /status error\.\nIt made no tool calls\.\nError \(provider\): researcher: model not approved: generic\/typed-model is named by an agent type or team/,
      );
      const child = await readStored(h, (await readStored(h, "lead")).sub_sessions[0]);
      assert.equal(child.errors[0].code, "provider");
    }
    {
      await using h = await harness(script, { catalog });
      (h.runtime as unknown as { config: Record<string, unknown> }).config.base_url = h.fake.url;
      (h.runtime as unknown as { init: Record<string, unknown> }).init.approveModel = true;
      const result = await h.engine.runTurn("go", { session: h.store.create("lead") });
      assert.equal(result.content, "done");
      assert.equal(
        (h.fake.requests[2].body as Body).messages.at(-1)!.content,
        "sub via typed-model",
      );
    }
  } finally {
    if (oldHome === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the request names the delegate types once, in the environment block", async () => {
  await using h = await harness([{ text: "ok" }], { catalog: researcher });
  await h.engine.runTurn("go", { session: h.store.create("lead") });
  const body = h.fake.requests[0].body as Body;
  const tools = body.tools as Array<{ function: { name: string; description: string } }>;
  const delegate = tools.find((t) => t.function.name === "delegate")!;
  assert.ok(systemOf(body).endsWith("\nDelegate types: researcher"), systemOf(body));
  assert.equal(
    delegate.function.description,
    "Hand a self-contained task to a sub-agent of an agent type and get its final answer. It " +
      "has its own tools, permissions and session in this folder, and one runs at a time: put " +
      "everything it needs in task. type: one of the Delegate types in the environment block.",
  );
});

Deno.test("with context.agents off the delegate tool names the types and is an error outside an agent turn", async () => {
  await using h = await harness([], { catalog: researcher, config: { "context.agents": false } });
  const tool = h.runtime.registry.resolve("delegate")!;
  assert.equal(tool.category, "delegate");
  assert.match(tool.description, /Types: researcher \(finds facts\)\.$/);
  const out = await tool.run({ type: "researcher", task: "t" }, {
    worktree: h.worktree,
    signal: new AbortController().signal,
    config: h.runtime.config,
    session: "x",
    headless: true,
    ask: () => Promise.resolve(null),
    status: () => {},
  });
  assert.deepEqual(out, { content: "Error: delegate runs only inside an agent turn", ok: false });
});

Deno.test("a tool's ctx.delegate is held to the depth limit like the delegate tool", async () => {
  let calls = 0;
  const refusals: string[] = [];
  const nest: Tool = {
    ...echoTool("nest", "read"),
    async run(_args, ctx) {
      if (++calls > 6) return "unbounded";
      const out = await ctx.delegate!("nester", "deeper");
      if (out.ok === false) refusals.push(out.content);
      return out.content;
    },
  };
  await using h = await harness((body) => {
    const b = body as Body;
    return b.messages.some((m) => m.role === "tool")
      ? { text: "done" }
      : { tool_calls: [{ name: "nest", arguments: { text: "x" } }] };
  }, { tools: [nest], catalog: catalogOf({ types: { nester: { system_prompt: "NESTER" } } }) });
  await h.engine.runTurn("go", { session: h.store.create("lead") });
  // The lead and its two nested sub-agents each call the tool; the deepest is refused.
  assert.equal(calls, MAX_DELEGATION_DEPTH + 1);
  assert.deepEqual(refusals, [
    "Error: delegation is nested 2 deep already, the limit; do the task here",
  ]);
});
