/**
 * The MCP client against real servers: server-filesystem and server-everything from npm (over
 * stdio and streamable HTTP), a legacy server on the v1 SDK, and svc's own `svc mcp` and
 * `POST /mcp` (the modern era). Each test drives a real engine turn by turn.
 */
import assert from "node:assert/strict";
import { sandbox } from "../../../tests/_support/cli.ts";
import { startServe, writeConfig } from "../../../tests/http/_serve.ts";
import { mcpTest } from "./_client.ts";
import { DENO_DIR, fixture, npmStdio, pinned, svcMcp } from "./_servers.ts";
import { NETWORK_VARIABLES, networkEnv } from "../../../src/tool/network_env.ts";

const FS_TOOLS = [
  "read_file",
  "read_text_file",
  "read_media_file",
  "read_multiple_files",
  "write_file",
  "edit_file",
  "create_directory",
  "list_directory",
  "list_directory_with_sizes",
  "directory_tree",
  "move_file",
  "search_files",
  "get_file_info",
  "list_allowed_directories",
];

Deno.test("server-filesystem over stdio: mcp_connect imports fs.<tool>, the next prompt offers them under wire names and reads a file", async () => {
  await using t = await mcpTest([
    npmStdio("fs", "@modelcontextprotocol/server-filesystem", ["."]),
  ], { files: { "notes.txt": "the secret word is parsnip\n" } });
  const path = `${t.h.worktree}/notes.txt`;
  assert.deepEqual(await t.call("mcp_connect"), {
    content: `Connected fs (stdio, MCP 2025-11-25): 14 tools: ${
      FS_TOOLS.map((n) => `fs.${n}`).join(", ")
    }; offered from your next prompt`,
    ok: true,
  });
  const read = await t.call("fs__read_text_file", { path });
  assert.deepEqual(read, { content: "the secret word is parsnip\n", ok: true });
  assert.deepEqual(t.offered(), [
    "ask",
    "delegate",
    "mcp_connect",
    "mcp_list",
    "mcp_disconnect",
    ...FS_TOOLS.map((n) => `fs__${n}`),
  ]);
  const described = t.h.fake.requests.at(-1)!.body.tools.find((
    s: { function: { name: string } },
  ) => s.function.name === "fs__read_text_file").function;
  assert.match(described.description, /^\[MCP server fs\] Read the complete contents of a file/);
  assert.deepEqual(described.parameters.required, ["path"]);
  // The canonical name resolves as well.
  assert.deepEqual(await t.call("fs.read_text_file", { path }), read);
  const listed = await t.call("mcp_list");
  assert.equal(
    listed.content,
    `fs: connected (stdio ${Deno.execPath()}; MCP 2025-11-25, legacy era; ` +
      `secure-filesystem-server 0.2.0)\n  tools: ${FS_TOOLS.map((n) => `fs.${n}`).join(", ")}`,
  );
  assert.deepEqual(await t.call("mcp_disconnect", { server: "fs" }), {
    content: "Disconnected fs; its 14 tools are withdrawn from your next prompt",
    ok: true,
  });
  const gone = await t.call("fs__read_text_file", { path });
  assert.match(gone.content, /^Error: unknown tool "fs__read_text_file"\. Available tools: ask,/);
  assert.equal(t.clients.stateOf("fs"), "disconnected");
});

Deno.test("server-everything over stdio: hyphenated names, numbers coerced, images as a note, and of svc's environment only the safe set and its proxy and certificate settings, the entry's winning", async () => {
  // Without svc's care a child inherits every variable, an exported API key included.
  const restore = setEnvFor({
    OPENAI_API_KEY: "sk-leak-marker-123",
    // svc's network settings reach the server. One exclusion more (a host that cannot exist)
    // changes no route, here or in the server's own download, and a certificate file without a
    // certificate adds none: both are safe to set whatever proxy this machine is behind.
    [NO_PROXY_NAME]: [Deno.env.get(NO_PROXY_NAME), "svc-test.invalid"].filter(Boolean).join(","),
    ...(Deno.env.get("DENO_CERT") ? {} : { DENO_CERT: await certFile("") }),
  });
  // The entry's own value wins: the same certificates as svc's, from another file.
  const svcCert = Deno.env.get("DENO_CERT")!;
  const entryCert = await certFile(await Deno.readTextFile(svcCert));
  try {
    const plain = await new Deno.Command("sh", { args: ["-c", "env"], stdout: "piped" }).output();
    assert.match(new TextDecoder().decode(plain.stdout), /sk-leak-marker-123/);
    const own = { DENO_DIR, SVC_TEST_MARKER: "from the entry", DENO_CERT: entryCert };
    await using t = await mcpTest([
      npmStdio("everything", "@modelcontextprotocol/server-everything", ["stdio"], { env: own }),
    ]);
    assert.equal((await t.call("mcp_connect", { server: "everything" })).ok, true);
    assert.deepEqual(await t.call("everything__get-sum", { a: 2, b: "3" }), {
      content: "The sum of 2 and 3 is 5.",
      ok: true,
    });
    const image = await t.call("everything__get-tiny-image");
    assert.match(image.content, /^\[image image\/png, \d+ bytes; not shown\]/m);
    const env = JSON.parse((await t.call("everything__get-env")).content);
    assert.equal(env.OPENAI_API_KEY, undefined);
    assert.equal(env.SVC_TEST_MARKER, "from the entry");
    assert.equal(env[NO_PROXY_NAME], Deno.env.get(NO_PROXY_NAME));
    assert.equal(env.DENO_CERT, entryCert);
    // Every network setting of svc's (a proxy address with a password in it excepted).
    for (const [name, value] of Object.entries(networkEnv())) {
      if (name !== "DENO_CERT" && !value.includes("@")) assert.equal(env[name], value, name);
    }
    // Beyond those: the SDK's safe set, the entry's own, and the one deno adds for an npm bin.
    const safe = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", ...NETWORK_VARIABLES];
    assert.deepEqual(
      Object.keys(env).filter((key) => !safe.includes(key) && !(key in own)).sort(),
      ["npm_config_user_agent"],
    );
  } finally {
    restore();
    await Deno.remove(entryCert);
    if (svcCert !== Deno.env.get("DENO_CERT")) await Deno.remove(svcCert);
  }
});

/** The no-proxy variable this machine uses: lower case only when it alone is set. */
const NO_PROXY_NAME = Deno.env.get("no_proxy") && !Deno.env.get("NO_PROXY")
  ? "no_proxy"
  : "NO_PROXY";

/** Sets `values` in this process's environment; the result puts back what was there. */
function setEnvFor(values: Record<string, string>): () => void {
  const before = Object.keys(values).map((name) => [name, Deno.env.get(name)] as const);
  for (const [name, value] of Object.entries(values)) Deno.env.set(name, value);
  return () => {
    for (const [name, value] of before) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  };
}

/** A temp file holding `pem` (DENO_CERT's format; one without a certificate adds none). */
async function certFile(pem: string): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "svc-test-ca-", suffix: ".pem" });
  await Deno.writeTextFile(path, pem);
  return path;
}

/** Starts server-everything's streamable HTTP transport on a free port. */
async function everythingHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      pinned("@modelcontextprotocol/server-everything"),
      "streamableHttp",
    ],
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/listening on port/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server-everything did not start: ${seen}`);
    seen += value;
  }
  reader.releaseLock();
  child.stderr.cancel().catch(() => {});
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      child.kill("SIGKILL");
      await child.status;
    },
  };
}

Deno.test("server-everything over streamable HTTP: connect, call a tool, disconnect", async () => {
  const server = await everythingHttp();
  try {
    await using t = await mcpTest([{ name: "web", transport: "http", url: server.url }]);
    const connected = await t.call("mcp_connect", { server: "web" });
    assert.match(
      connected.content,
      /^Connected web \(http, MCP 2025-11-25\): \d+ tools: web\.echo, /,
    );
    assert.deepEqual(await t.call("web__echo", { message: "over http" }), {
      content: "Echo: over http",
      ok: true,
    });
    assert.match(
      (await t.call("mcp_list")).content,
      /^web: connected \(http http:\/\/127\.0\.0\.1:\d+\/mcp; MCP 2025-11-25, legacy era; mcp-servers\/everything 2\.0\.0\)/,
    );
  } finally {
    await server.stop();
  }
});

Deno.test("a legacy server on the v1 SDK is opened with the initialize handshake and its tools run", async () => {
  await using t = await mcpTest([fixture("old", "legacy_server.ts")]);
  assert.deepEqual(await t.call("mcp_connect", { server: "old" }), {
    content:
      "Connected old (stdio, MCP 2025-11-25): 3 tools: old.add, old.greet, old.change_greet; " +
      "offered from your next prompt",
    ok: true,
  });
  assert.deepEqual(await t.call("old__add", { a: 2, b: 40 }), { content: "42", ok: true });
  assert.match(
    (await t.call("mcp_list")).content,
    /; MCP 2025-11-25, legacy era; legacy-fixture 1\.0\.0\)/,
  );
});

Deno.test("svc's own svc mcp over stdio negotiates the modern era through server/discover", async () => {
  await using box = await sandbox();
  await using t = await mcpTest([svcMcp("self", box.home)], {
    files: { "notes.txt": "served by svc itself\n" },
  });
  const connected = await t.call("mcp_connect", { server: "self" });
  assert.match(
    connected.content,
    /^Connected self \(stdio, MCP 2026-07-28\): \d+ tools: .*self\.file_read, /,
  );
  const read = await t.call("self__file_read", { path: "notes.txt" });
  assert.equal(read.ok, true);
  assert.match(read.content, /served by svc itself/);
  assert.match(
    (await t.call("mcp_list")).content,
    /^self: connected \(stdio .*; MCP 2026-07-28, modern era; svc /,
  );
});

Deno.test("an http server's headers are sent as-is: svc serve's POST /mcp takes the configured bearer token", async () => {
  await using box = await sandbox();
  await writeConfig(box.worktree, "http://127.0.0.1:9"); // a backend svc serve never calls here
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  try {
    await using t = await mcpTest([
      { name: "tok", transport: "http", url: `${served.url}/mcp`, headers: served.auth },
      { name: "bare", transport: "http", url: `${served.url}/mcp` },
    ]);
    const reports = (await t.call("mcp_connect")).content.split("\n");
    assert.match(
      reports[0],
      /^Connected tok \(http, MCP 2026-07-28\): \d+ tools: .*tok\.file_read, /,
    );
    assert.match(reports[1], /^Error: could not connect bare: .*401/);
  } finally {
    await served.stop();
  }
});
