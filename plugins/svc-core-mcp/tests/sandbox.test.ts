/**
 * Issue 28 item 1: an `mcp.servers` entry with `sandbox: true` starts its server inside svc's OS
 * sandbox (bubblewrap): svc's own folder under HOME is hidden from it, nothing outside the
 * worktree and its private temp folder is writable, and that folder goes when the server ends.
 * The same server without the key reads and writes both, so each refusal is the sandbox's doing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { McpServerSchema } from "../../../src/config/schema.ts";
import { sandboxKind } from "../../../src/sandbox/mod.ts";
import { mcpTest } from "./_client.ts";
import { fixture } from "./_servers.ts";

const kind = await sandboxKind();
const noBubblewrap = kind.ok
  ? (kind.kind === "bubblewrap" ? undefined : `the ${kind.kind} sandbox is not wired`)
  : kind.reason;
if (noBubblewrap) console.warn(`skipping the sandboxed MCP server tests: ${noBubblewrap}`);

const KEY = "sk-sandbox-canary-4711";

/**
 * Runs `fn` with HOME set to a temp folder holding `.config/svc/providers.json` with KEY. It is
 * made outside /tmp where it can be: a sandboxed process has a /tmp of its own, so a write to
 * /tmp/x lands there, not in the host's /tmp.
 */
async function withSecretHome(fn: (home: string) => Promise<void>): Promise<void> {
  const dir = await Deno.stat("/var/tmp").then((s) => s.isDirectory ? "/var/tmp" : undefined)
    .catch(() => undefined);
  const home = await Deno.realPath(await Deno.makeTempDir({ dir, prefix: "svc-mcp-home-" }));
  await Deno.mkdir(join(home, ".config", "svc"), { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(
    join(home, ".config", "svc", "providers.json"),
    JSON.stringify({ openai: { api_key: KEY } }),
  );
  const before = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    await fn(home);
  } finally {
    if (before === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", before);
    await Deno.remove(home, { recursive: true });
  }
}

/** The sandbox folders of this machine's temp folder that hold `name`. */
async function tempsHolding(name: string): Promise<string[]> {
  const root = Deno.env.get("TMPDIR") || "/tmp";
  const found: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    if (!entry.name.startsWith("svc-sandbox-")) continue;
    if (await Deno.stat(join(root, entry.name, name)).then(() => true, () => false)) {
      found.push(join(root, entry.name));
    }
  }
  return found;
}

Deno.test({
  name: "a server with sandbox: true cannot read svc's keys under HOME nor write outside the " +
    "worktree, which the same server unsandboxed can, and its temp folder goes with it",
  ignore: noBubblewrap !== undefined,
  fn: () =>
    withSecretHome(async (home) => {
      await using t = await mcpTest([
        fixture("open", "file_server.ts"),
        fixture("boxed", "file_server.ts", [], { sandbox: true }),
      ]);
      const keys = join(home, ".config", "svc", "providers.json");
      const connected = await t.call("mcp_connect");
      assert.equal(connected.ok, true, connected.content);
      assert.match(connected.content, /Connected boxed \(stdio, MCP /);

      // Unsandboxed, the server reads the key and writes anywhere svc may.
      assert.match((await t.call("open__read", { path: keys })).content, new RegExp(KEY));
      const outside = join(home, "outside.txt");
      assert.equal((await t.call("open__write", { path: outside, text: "x" })).content, "written");

      // Sandboxed, svc's folder is an empty one and everything but the worktree is read-only.
      const read = await t.call("boxed__read", { path: keys });
      assert.doesNotMatch(read.content, new RegExp(KEY));
      assert.match(read.content, /^refused: No such file or directory/);
      const planted = join(home, "planted.txt");
      const write = await t.call("boxed__write", { path: planted, text: "x" });
      assert.match(write.content, /^refused: Read-only file system/);
      assert.equal(await Deno.stat(planted).then(() => true, () => false), false);
      const inside = join(t.h.worktree, "inside.txt");
      assert.equal((await t.call("boxed__write", { path: inside, text: "ok" })).content, "written");
      assert.equal(await Deno.readTextFile(inside), "ok");

      // Its /tmp is a private folder of its own, removed when the server ends.
      const marker = `marker-${crypto.randomUUID()}`;
      const temp = await t.call("boxed__write", { path: `/tmp/${marker}`, text: "t" });
      assert.equal(temp.content, "written");
      assert.equal((await tempsHolding(marker)).length, 1);
      assert.match((await t.call("mcp_list")).content, /boxed: connected \(stdio \S+, sandboxed;/);
      assert.equal((await t.call("mcp_disconnect", { server: "boxed" })).ok, true);
      assert.deepEqual(await tempsHolding(marker), []);
    }),
});

Deno.test({
  name: "without a sandbox that can run, a server with sandbox: true is not started and its " +
    "connect fails with the sandbox's message (sandbox.failIfUnavailable defaults to true)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using t = await mcpTest([fixture("boxed", "file_server.ts", [], { sandbox: true })]);
    const empty = await Deno.makeTempDir({ prefix: "svc-mcp-nopath-" });
    const path = Deno.env.get("PATH");
    Deno.env.set("PATH", empty); // no bwrap on PATH: the probe runs again and finds none
    try {
      const out = await t.call("mcp_connect", { server: "boxed" });
      assert.equal(out.ok, false);
      assert.match(
        out.content,
        /^Error: could not connect boxed: refused: this command must run in svc's OS sandbox, and none can run here: bubblewrap \(bwrap\) is not installed/,
      );
      assert.equal(t.clients.stateOf("boxed"), "failed");
    } finally {
      Deno.env.set("PATH", path ?? "");
      await Deno.remove(empty);
    }
  },
});

Deno.test("sandbox is refused on an http entry: svc starts no program for it", () => {
  const parsed = McpServerSchema.safeParse({
    name: "remote",
    transport: "http",
    url: "https://mcp.example.com/mcp",
    sandbox: true,
  });
  assert.equal(parsed.success, false);
  assert.deepEqual(parsed.error!.issues.map((i) => [i.path, i.message]), [[
    ["sandbox"],
    'server remote: sandbox applies to transport "stdio" only (svc starts no program for http)',
  ]]);
  assert.equal(McpServerSchema.parse({ name: "fs", command: "x" }).sandbox, false);
});
