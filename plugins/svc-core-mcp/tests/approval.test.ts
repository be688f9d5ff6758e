/**
 * Issue 36 item 3: a stdio server that a trusted worktree's own `.svc/config.json` names (say,
 * added by a `git pull` after the worktree was trusted) starts only after this person approves
 * its command, args, cwd and env with `svc trust --mcp`; a changed entry needs a new approval.
 * The user's own (global) servers need none.
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../../../tests/_support/cli.ts";
import { startFakeProvider } from "../../../tests/_support/fake_provider.ts";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/** An autoconnect "server" that creates `canary` when it starts (and then quits). */
const canaryServer = (canary: string, extra: string[] = []) => ({
  name: "pulled",
  command: "sh",
  args: ["-c", `touch '${canary}'`, ...extra],
  autoconnect: true,
});

async function writeLocal(worktree: string, servers: unknown[]): Promise<void> {
  await Deno.mkdir(`${worktree}/.svc`, { recursive: true });
  await Deno.writeTextFile(
    `${worktree}/.svc/config.json`,
    JSON.stringify({ "mcp.servers": servers, tool_permission: { mcp: "allow" } }),
  );
}

/** A headless `svc run` whose one turn calls mcp_connect; returns stderr and the tool result. */
async function run(box: { worktree: string; env: Record<string, string> }) {
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "mcp_connect", arguments: { server: "pulled" } }] },
    { text: "done" },
  ]);
  const out = await svc(["run", "--base-url", fake.url, "--model", "m", "connect"], {
    cwd: box.worktree,
    env: box.env,
  });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  return { stderr: out.stderr, toolResult: fake.requests[1].body.messages.at(-1).content };
}

Deno.test("a trusted worktree's own stdio server starts only once approved, and again after a change", async () => {
  await using box = await sandbox({}, { trusted: true });
  const canary = `${box.home}/canary`;
  await writeLocal(box.worktree, [canaryServer(canary)]);

  // Headless, unapproved: nothing starts; autoconnect and mcp_connect say how to approve.
  const first = await run(box);
  assert.equal(await exists(canary), false);
  assert.match(
    first.stderr,
    /^warning: MCP autoconnect: MCP server pulled was not started: it comes from this worktree's \.svc\/config\.json and you have not approved it; review it and run svc trust --mcp pulled "/m,
  );
  assert.match(first.toolResult, /^Error: MCP server pulled was not started: .*svc trust --mcp/);

  const approved = await svc(["trust", "--mcp", "pulled"], { cwd: box.worktree, env: box.env });
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /^Approved MCP server pulled in .*; it runs:\n {2}command: sh -c /);
  const file = `${box.home}/.config/svc/mcp_approvals.json`;
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  const listed = await svc(["trust", "--mcp", "--list"], { cwd: box.worktree, env: box.env });
  assert.match(listed.stdout, /\tpulled\t/);

  await run(box);
  assert.equal(await exists(canary), true, "the approved server starts");
  await Deno.remove(canary);

  // The entry changes (its args): it needs a new approval.
  await writeLocal(box.worktree, [canaryServer(canary, ["changed"])]);
  const changed = await run(box);
  assert.equal(await exists(canary), false);
  assert.match(changed.stderr, /its entry in this worktree's \.svc\/config\.json changed since/);

  // Revoked after a new approval: refused again.
  await svc(["trust", "--mcp", "pulled"], { cwd: box.worktree, env: box.env });
  const revoked = await svc(["trust", "--mcp", "pulled", "--remove"], {
    cwd: box.worktree,
    env: box.env,
  });
  assert.match(revoked.stdout, /^Revoked MCP server pulled/);
  await run(box);
  assert.equal(await exists(canary), false);
});

Deno.test("a stdio server of the user's own config starts without approval", async () => {
  await using box = await sandbox({}, { trusted: true });
  const canary = `${box.home}/canary`;
  await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.config/svc/config.json`,
    JSON.stringify({ "mcp.servers": [canaryServer(canary)], tool_permission: { mcp: "allow" } }),
  );
  const { stderr } = await run(box);
  assert.equal(await exists(canary), true);
  assert.doesNotMatch(stderr, /not started/);
  const asked = await svc(["trust", "--mcp", "pulled"], { cwd: box.worktree, env: box.env });
  assert.match(asked.stdout, /^pulled needs no approval/);
});
