/**
 * One table of tool calls, run through every front-end as a real process: `svc run` (headless and
 * `--yes`) and POST /chat of `svc serve` with the fake model making the calls, POST /mcp of the
 * same server and `svc mcp` on stdio with the official MCP client making them. Each call must get
 * the same policy verdict (the audit record's tool, category, action and reason) everywhere; the
 * outcome differs only where the front-ends' approvers differ.
 *
 * Differences by design:
 * - Who answers an ask. The agent loop without a person (`svc run`, POST /chat) denies ask-gated
 *   calls: outcome denied, by policy. `svc run --yes` approves them: approved once, by flag. MCP
 *   with `mcp_server.allow_ask` true approves them as the client: approved once, by client.
 * - Calls of tools that are not offered. svc offers neither unknown tools nor the ones it removes
 *   (`tools.deny`, the edit and bash categories in plan mode), so the agent loop answers them
 *   `unknown tool`; the audit records deny with the tool's category and why it is not offered
 *   (category `unknown` and reason `unknown tool` for a name svc does not know). Over MCP such a
 *   tool is not registered: the SDK's McpServer answers the JSON-RPC error -32602 "Tool <name>
 *   not found" before svc sees the call, so `.svc/logs/mcp_audit.jsonl` has no record of it.
 * - Tool name aliases (`read_file` for `file_read`) are resolved for the model only: an MCP client
 *   calls the names of tools/list, and the SDK refuses an alias the same way (-32602, no audit).
 *
 * The policy lives in the global config of the temp HOME: a repository's `.svc/config.json` may
 * only tighten the policy until `svc trust`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ProtocolError } from "@modelcontextprotocol/client";
import { svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { startServe } from "../http/_serve.ts";
import { type AnyClient, v2Http, v2Stdio } from "../mcp/_clients.ts";
import type { PermissionRecord } from "../../src/shared/types.ts";

/** An audit record without its time and call id. */
type Audit = Omit<PermissionRecord, "at" | "call_id">;
/** The policy's part of an audit record. */
type Verdict = Pick<Audit, "tool" | "category" | "action" | "reason">;

/** The global policies the table is judged under: one, and the same in plan mode. */
const BASE = {
  tool_permission: { edit: "allow", bash_allow: ["echo"] },
  "tools.deny": ["glob"],
  "mcp_server.allow_ask": true,
};
const POLICIES = { base: BASE, plan: { ...BASE, mode: "plan" } };

interface Row {
  policy: keyof typeof POLICIES;
  call: string;
  name: string;
  args: Record<string, unknown>;
  verdict: Verdict;
  /** Not a name in MCP tools/list (not offered, or an alias): see the differences above. */
  unlisted?: true;
}

/** The verdict of a call whose tool is not offered (`why` is the policy's reason). */
function notOffered(name: string, category = "unknown", why?: string): Verdict {
  const reason = why ? `not offered: ${why}` : "unknown tool";
  return { tool: name, category, action: "deny", reason };
}

const TABLE: Row[] = [
  {
    policy: "base",
    call: "file_read of a worktree file",
    name: "file_read",
    args: { path: "notes.txt" },
    verdict: {
      tool: "file_read",
      category: "read",
      action: "allow",
      reason: "read category is allow",
    },
  },
  {
    policy: "base",
    call: "read_file, an alias of file_read",
    name: "read_file",
    args: { file: "notes.txt" },
    verdict: {
      tool: "file_read",
      category: "read",
      action: "allow",
      reason: "read category is allow",
    },
    unlisted: true,
  },
  {
    policy: "base",
    call: "file_read outside the worktree",
    name: "file_read",
    args: { path: "../outside.txt" },
    verdict: {
      tool: "file_read",
      category: "read",
      action: "ask",
      reason: "path is outside the worktree",
    },
  },
  {
    policy: "base",
    call: "glob, listed in tools.deny",
    name: "glob",
    args: { pattern: "*.txt" },
    verdict: notOffered("glob", "read", "listed in tools.deny"),
    unlisted: true,
  },
  {
    policy: "base",
    call: "run_command allowed by bash_allow",
    name: "run_command",
    args: { command: "echo same" },
    verdict: {
      tool: "run_command",
      category: "bash",
      action: "ask",
      reason: "bash category is ask",
    },
  },
  {
    policy: "base",
    call: "run_command refused by bash_allow",
    name: "run_command",
    args: { command: "touch pwned" },
    verdict: {
      tool: "run_command",
      category: "bash",
      action: "deny",
      reason: "run_command policy requires deny: not in bash_allow: touch pwned",
    },
  },
  {
    policy: "base",
    call: "file_write in the worktree",
    name: "file_write",
    args: { path: "plan.md", content: "step 1\n" },
    verdict: {
      tool: "file_write",
      category: "edit",
      action: "allow",
      reason: "edit category is allow",
    },
  },
  {
    policy: "base",
    call: "file_edit of .svc/config.json",
    name: "file_edit",
    args: { path: ".svc/config.json", old: "{}", new: '{"mode": "build"}' },
    verdict: {
      tool: "file_edit",
      category: "edit",
      action: "ask",
      reason: "edits svc or git control files (.svc/, .git/)",
    },
  },
  {
    policy: "base",
    call: "an unknown tool",
    name: "teleport",
    args: { to: "mars" },
    verdict: notOffered("teleport"),
    unlisted: true,
  },
  {
    policy: "base",
    call: "file_read with invalid arguments",
    name: "file_read",
    args: { path: 5 },
    verdict: { tool: "file_read", category: "read", action: "deny", reason: "invalid arguments" },
  },
  {
    policy: "plan",
    call: "file_read in plan mode",
    name: "file_read",
    args: { path: "notes.txt" },
    verdict: {
      tool: "file_read",
      category: "read",
      action: "allow",
      reason: "read category is allow",
    },
  },
  {
    policy: "plan",
    call: "file_read outside the worktree in plan mode",
    name: "file_read",
    args: { path: "../outside.txt" },
    verdict: {
      tool: "file_read",
      category: "read",
      action: "ask",
      reason: "path is outside the worktree",
    },
  },
  {
    policy: "plan",
    call: "file_write in plan mode",
    name: "file_write",
    args: { path: "plan.md", content: "step 1\n" },
    verdict: notOffered("file_write", "edit", "plan mode denies the edit category"),
    unlisted: true,
  },
  {
    policy: "plan",
    call: "run_command in plan mode",
    name: "run_command",
    args: { command: "echo same" },
    verdict: notOffered("run_command", "bash", "plan mode denies the bash category"),
    unlisted: true,
  },
];

/** Who answers ask-gated calls on a front-end. */
type Asker = "nobody" | "flag" | "client";

/** The audit record a verdict leads to when `asker` answers the asks. */
function audited(verdict: Verdict, asker: Asker): Audit {
  if (verdict.action === "allow") return { ...verdict, outcome: "allowed", by: "policy" };
  if (verdict.action === "deny" || asker === "nobody") {
    return { ...verdict, outcome: "denied", by: "policy" };
  }
  return { ...verdict, outcome: "approved", by: asker, scope: "once" };
}

/** What a front-end recorded for each call, in table order; MCP protocol errors as text. */
type Seen = Array<[call: string, Audit | string]>;

/** What each front-end should record for `rows`. */
function expected(rows: Row[], asker: Asker, mcp: boolean): Seen {
  return rows.map((row) => [
    row.call,
    mcp && row.unlisted ? `-32602 Tool ${row.name} not found` : audited(row.verdict, asker),
  ]);
}

const PROMPT = "make the calls of the table";

/** A temp HOME holding the global policy, `outside.txt` and one worktree per front-end. */
async function home(policy: Record<string, unknown>, providerUrl: string) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-verdicts-" }));
  await Deno.mkdir(join(root, ".config/svc"), { recursive: true });
  await Deno.writeTextFile(
    join(root, ".config/svc/config.json"),
    JSON.stringify({ base_url: providerUrl, model: "m", stream_retry_delay: 0.01, ...policy }),
  );
  await Deno.writeTextFile(join(root, "outside.txt"), "outside the worktree\n");
  return {
    // PATH: approved run_command calls start bash.
    env: { HOME: root, NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "" },
    /**
     * A fresh worktree `root/<name>`, so `../outside.txt` leads out of it; its `.svc/config.json`
     * exists (and loosens nothing) so an approved control-file edit really runs.
     */
    async worktree(name: string): Promise<string> {
      const dir = join(root, name);
      await Deno.mkdir(join(dir, ".svc"), { recursive: true });
      await Deno.writeTextFile(join(dir, "notes.txt"), "alpha\nbeta\n");
      await Deno.writeTextFile(join(dir, ".svc/config.json"), "{}");
      return dir;
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/** The `permissions` audit of a saved session. */
async function sessionAudit(worktree: string, session: string): Promise<Audit[]> {
  const stored = JSON.parse(
    await Deno.readTextFile(join(worktree, `.svc/sessions/${session}.json`)),
  );
  return stored.permissions.map(trim);
}

/** The served-call audit of a worktree, one record per line. */
async function mcpAudit(worktree: string): Promise<Audit[]> {
  const text = await Deno.readTextFile(join(worktree, ".svc/logs/mcp_audit.jsonl"));
  return text.trim().split("\n").map((line) => trim(JSON.parse(line)));
}

function trim({ at: _at, call_id: _id, ...rest }: PermissionRecord): Audit {
  return rest;
}

/** Pairs the loop's records with the table's calls (every call is audited, in order). */
function loopSeen(rows: Row[], records: Audit[]): Seen {
  assert.equal(records.length, rows.length, JSON.stringify(records));
  return rows.map((row, i) => [row.call, records[i]]);
}

/** Makes every call over one MCP connection; protocol errors are kept as `code message`. */
async function callAll(client: AnyClient, rows: Row[]): Promise<Array<string | null>> {
  const errors: Array<string | null> = [];
  for (const row of rows) {
    try {
      await client.callTool({ name: row.name, arguments: row.args });
      errors.push(null);
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      errors.push(`${err.code} ${err.message}`);
    }
  }
  return errors;
}

/** Pairs served calls with the audit: a call the SDK refused leaves no record. */
function mcpSeen(rows: Row[], errors: Array<string | null>, records: Audit[]): Seen {
  const left = [...records];
  const seen: Seen = rows.map((row, i) => [row.call, errors[i] ?? left.shift()!]);
  assert.deepEqual(left, [], "audit records of calls no one made");
  return seen;
}

/** `svc run` with the fake model making every call of `rows` in one round. */
async function viaRun(worktree: string, env: Record<string, string>, flags: string[]) {
  const out = await svc(["run", ...flags, "--output", "json", "-p", PROMPT], {
    cwd: worktree,
    env,
  });
  assert.equal(out.code, 0, out.stderr);
  return await sessionAudit(worktree, JSON.parse(out.stdout).session);
}

/** `svc serve`: one POST /chat turn making every call, then every call over POST /mcp. */
async function viaServe(worktree: string, env: Record<string, string>, rows: Row[]) {
  const served = await startServe([], { cwd: worktree, env });
  try {
    const chat = await served.fetch(`${served.url}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: PROMPT, session_id: "chat" }),
    });
    assert.equal(chat.status, 200);
    assert.equal((await chat.json()).status, "ok");
    const client = await v2Http(`${served.url}/mcp`, "auto", served.fetch);
    let errors;
    try {
      errors = await callAll(client as unknown as AnyClient, rows);
    } finally {
      await client.close();
    }
    assert.equal(await served.stop(), 0, served.stderr());
    return {
      chat: await sessionAudit(worktree, "chat"),
      mcp: mcpSeen(rows, errors, await mcpAudit(worktree)),
    };
  } finally {
    await served.stop();
  }
}

/** `svc mcp` on stdio: every call over one client connection, in the legacy era (HTTP is modern). */
async function viaMcp(worktree: string, env: Record<string, string>, rows: Row[]) {
  const client = await v2Stdio("legacy", worktree, env);
  let errors;
  try {
    errors = await callAll(client as unknown as AnyClient, rows);
  } finally {
    await client.close();
  }
  return mcpSeen(rows, errors, await mcpAudit(worktree));
}

for (const [policy, config] of Object.entries(POLICIES)) {
  const rows = TABLE.filter((row) => row.policy === policy);
  Deno.test(`svc run, POST /chat, POST /mcp and svc mcp give each call the same verdict (${policy} policy)`, async () => {
    const fake = await startFakeProvider((body) =>
      body.messages.at(-1).role === "user"
        ? {
          tool_calls: rows.map((row) => ({ name: row.name, arguments: row.args })),
        }
        : { text: "done" }
    );
    try {
      await using box = await home(config, fake.url);
      // One after the other: the suite shares few cores, and each front-end has its worktree.
      const headless = await viaRun(await box.worktree("run"), box.env, []);
      const yes = await viaRun(await box.worktree("run-yes"), box.env, ["--yes"]);
      const serve = await viaServe(await box.worktree("serve"), box.env, rows);
      const mcp = await viaMcp(await box.worktree("mcp"), box.env, rows);
      assert.deepEqual(loopSeen(rows, headless), expected(rows, "nobody", false), "svc run");
      assert.deepEqual(loopSeen(rows, yes), expected(rows, "flag", false), "svc run --yes");
      assert.deepEqual(loopSeen(rows, serve.chat), expected(rows, "nobody", false), "POST /chat");
      assert.deepEqual(serve.mcp, expected(rows, "client", true), "POST /mcp");
      assert.deepEqual(mcp, expected(rows, "client", true), "svc mcp");
    } finally {
      await fake.close();
    }
  });
}
