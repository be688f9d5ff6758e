/** Nested project instructions (docs/prompt.md), delivered with tool results. */
import assert from "node:assert/strict";
import { deliveredInstructions, touchedFolders } from "../../src/engine/nested_instructions.ts";
import type { SessionMessage } from "../../src/session/types.ts";
import type { Tool } from "../../src/tool/types.ts";
import { fixedApprover } from "../../src/tool/approval.ts";
import { catalogOf } from "../_support/catalog.ts";
import { echoTool, harness, readStored } from "../_support/engine.ts";

type Body = { messages: Array<{ role: string; content: string; tool_call_id?: string }> };

const read = (path: string) => ({ name: "echo", arguments: { text: "r", path } });
const echoed = (path: string) => `echo: ${JSON.stringify({ text: "r", path })}`;
/** The tool messages of a request, in order. */
const toolResults = (body: Body) =>
  body.messages.filter((m) => m.role === "tool").map((m) => m.content);

async function write(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${root}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${root}/${path}`, text);
  }
}

Deno.test("a file read in a sub-folder with its own AGENTS.md brings that file's text to the model in the next request, once", async () => {
  await using h = await harness([
    { tool_calls: [read("sub/deep/f.txt")] },
    { tool_calls: [read("sub/other.txt")] },
    { text: "done" },
    { tool_calls: [read("sub/deep/g.txt")] },
    { text: "done again" },
  ]);
  await write(h.worktree, {
    "AGENTS.md": "ROOT RULES",
    "sub/AGENTS.md": "SUB RULES",
    "sub/deep/AGENTS.md": "DEEP RULES",
    "sub/deep/f.txt": "f",
  });
  const session = h.store.create("t");
  await h.engine.runTurn("go", { session });
  const requests = h.fake.requests.map((r) => r.body as Body);
  const expected = echoed("sub/deep/f.txt") +
    "\n\nProject instructions (sub/AGENTS.md), for the files in sub/:\n\nSUB RULES" +
    "\n\nProject instructions (sub/deep/AGENTS.md), for the files in sub/deep/:\n\nDEEP RULES";
  assert.deepEqual(toolResults(requests[1]), [expected]);
  // The second read in the same folder brings nothing again.
  assert.deepEqual(toolResults(requests[2]), [expected, echoed("sub/other.txt")]);
  const stored = await readStored(h, "t");
  assert.deepEqual(
    stored.messages.filter((m: SessionMessage) => m.role === "tool").map((m: SessionMessage) =>
      m.instructions
    ),
    [["sub/AGENTS.md", "sub/deep/AGENTS.md"], undefined],
  );
  // A resumed session knows what it was given.
  await h.engine.runTurn("more", { session: await h.store.openOrCreate("t") });
  assert.deepEqual(toolResults(h.fake.requests[4].body as Body).at(-1), echoed("sub/deep/g.txt"));
});

Deno.test("in an untrusted worktree, nested instructions leading outside it are not read", async () => {
  // The read through the link leaves the worktree, so it asks: approved here, it runs.
  await using h = await harness([
    { tool_calls: [read("linked/f.txt"), read("sub/f.txt"), read("fifo/f.txt")] },
    { text: "done" },
  ], { approver: fixedApprover({ answer: "once", by: "flag" }) });
  const outside = await Deno.makeTempDir({ prefix: "svc-outside-" });
  try {
    await write(outside, { "AGENTS.md": "SECRET OUTSIDE", "f.txt": "f" });
    await Deno.symlink(outside, `${h.worktree}/linked`);
    await Deno.mkdir(`${h.worktree}/sub`);
    await Deno.symlink(`${outside}/AGENTS.md`, `${h.worktree}/sub/AGENTS.md`);
    await Deno.mkdir(`${h.worktree}/fifo`);
    await new Deno.Command("mkfifo", { args: [`${h.worktree}/fifo/AGENTS.md`] }).output();
    const result = await h.engine.runTurn("go", { session: h.store.create("t") });
    assert.equal(result.status, "ok");
    assert.deepEqual(toolResults(h.fake.requests[1].body as Body), [
      echoed("linked/f.txt"),
      echoed("sub/f.txt"),
      echoed("fifo/f.txt"),
    ]);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a sub-agent gets the instructions of the folders it works in, in its own session", async () => {
  const systemOf = (body: Body) => body.messages[0].content;
  await using h = await harness((body, i) => {
    const b = body as Body;
    if (systemOf(b).startsWith("HELPER")) {
      return b.messages.some((m) => m.role === "tool")
        ? { text: "helped" }
        : { tool_calls: [read("pkg/x.ts")] };
    }
    return i === 0
      ? { tool_calls: [read("pkg/y.ts")] }
      : i === 1
      ? { tool_calls: [{ name: "delegate", arguments: { type: "helper", task: "t" } }] }
      : { text: "done" };
  }, {
    catalog: catalogOf({ types: { helper: { system_prompt: "HELPER" } } }),
  });
  await write(h.worktree, { "pkg/AGENTS.md": "PKG RULES" });
  await h.engine.runTurn("go", { session: h.store.create("lead") });
  const sub = h.fake.requests.map((r) => r.body as Body).filter((b) =>
    systemOf(b).startsWith("HELPER")
  );
  assert.deepEqual(toolResults(sub[1]), [
    `${echoed("pkg/x.ts")}\n\nProject instructions (pkg/AGENTS.md), for the files in pkg/:\n\n` +
    "PKG RULES",
  ]);
});

Deno.test("the files in front of the model are those of the messages after the last compaction", () => {
  const at = "2026-01-01T00:00:00Z";
  const tool = (instructions: string[]): SessionMessage => ({
    role: "tool",
    content: "x",
    timestamp: at,
    instructions,
  });
  const messages: SessionMessage[] = [
    tool(["a/AGENTS.md"]),
    tool(["b/AGENTS.md"]),
    { role: "system", content: "summary", timestamp: at, compact_from: 1 },
    tool(["c/AGENTS.md"]),
  ];
  assert.deepEqual([...deliveredInstructions(messages)].sort(), ["b/AGENTS.md", "c/AGENTS.md"]);
  assert.deepEqual([...deliveredInstructions(messages.slice(0, 2))].sort(), [
    "a/AGENTS.md",
    "b/AGENTS.md",
  ]);
});

Deno.test("only file tools bring folders, and never svc's, git's or dependencies' folders", async () => {
  const worktree = await Deno.realPath(await Deno.makeTempDir());
  try {
    await write(worktree, { "a/b/file.txt": "x" });
    const folders = (category: Tool["category"], path: string) =>
      touchedFolders({ tool: echoTool("e", category), args: { path } }, worktree);
    assert.deepEqual(
      [
        folders("read", "a/b/file.txt"),
        folders("list", "a/b"),
        folders("edit", "a/new/n.txt"),
        folders("bash", "a/b/file.txt"),
        folders("read", "x/node_modules/p/i.js"),
        folders("read", ".svc/config.json"),
        folders("read", "../elsewhere/f"),
      ],
      [["a", "a/b"], ["a", "a/b"], ["a", "a/new"], [], ["x"], [], []],
    );
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
});
