/**
 * An MCP server approval and the entry's `sandbox` key: a grant given to a server outside svc's
 * OS sandbox still covers it inside (a tightening), one given inside does not cover the same entry
 * once it leaves the sandbox (a loosening a `git pull` could bring), and older grants, which have
 * no sandbox mark, keep working.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  approveServer,
  serverApproval,
  serverRefusal,
  type ServerSpec,
} from "../../src/config/mcp_approvals.ts";

async function withLocalServer(fn: (worktree: string) => Promise<void>): Promise<void> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-mcp-approval-" }));
  const worktree = join(base, "work");
  await Deno.mkdir(join(worktree, ".svc"), { recursive: true });
  await Deno.mkdir(join(base, "home", ".config", "svc"), { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(
    join(worktree, ".svc", "config.json"),
    JSON.stringify({ "mcp.servers": [{ name: "pulled", command: "sh" }] }),
  );
  const home = Deno.env.get("HOME");
  Deno.env.set("HOME", join(base, "home"));
  try {
    await fn(worktree);
  } finally {
    if (home === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", home);
    await Deno.remove(base, { recursive: true });
  }
}

const entry = (sandbox: boolean): ServerSpec => ({
  name: "pulled",
  command: "sh",
  args: ["-c", "true"],
  cwd: null,
  env: {},
  sandbox,
});

Deno.test("an approval given inside the sandbox does not cover the entry once it leaves it", () =>
  withLocalServer(async (worktree) => {
    await approveServer(worktree, entry(true));
    assert.equal(await serverApproval(entry(true), worktree), "approved");
    assert.equal(await serverApproval(entry(false), worktree), "unsandboxed");
    assert.match(
      (await serverRefusal(entry(false), worktree))!,
      /^MCP server pulled was not started: you approved it to run in svc's OS sandbox, and its entry in this worktree's \.svc\/config\.json no longer sets sandbox: true; review it and run svc trust --mcp pulled /,
    );
    // Approving it as it is now covers it outside the sandbox, and inside again.
    await approveServer(worktree, entry(false));
    assert.equal(await serverApproval(entry(false), worktree), "approved");
    assert.equal(await serverApproval(entry(true), worktree), "approved");
  }));

Deno.test("an approval given outside the sandbox covers the same entry inside it, and a changed command still needs a new one", () =>
  withLocalServer(async (worktree) => {
    await approveServer(worktree, entry(false));
    assert.equal(await serverApproval(entry(true), worktree), "approved");
    const other = { ...entry(true), args: ["-c", "echo other"] };
    assert.equal(await serverApproval(other, worktree), "changed");
  }));
