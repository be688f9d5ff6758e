/**
 * The MCP client against a real server (server-filesystem from npm, run by deno, over stdio):
 * how long `mcp_connect` takes to start the server, connect and list its tools, with the server's
 * own start and the bare official client's connect and list as calibration; and what an imported
 * tool call (the one invocation path: normalize, policy, run, cap, audit) costs above the same
 * call made with the bare official client.
 */
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { networkEnv } from "../../src/tool/network_env.ts";
import { commandSandbox } from "../../src/tool/shell.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { loadPlugins } from "../../src/plugin/load.ts";
import { Runtime } from "../../src/runtime/runtime.ts";
import { servedTools } from "../../src/runtime/served_tools.ts";
import { clientsFor } from "../../plugins/svc-core-mcp/src/client/clients.ts";
import { median, report } from "./_util.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const imports = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).imports;
const SERVER = imports["@modelcontextprotocol/server-filesystem"] as string;
const ROUNDS = 10;
const CALLS = 300;

const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-bench-mcp-" }));
await Deno.writeTextFile(`${worktree}/notes.txt`, "alpha\nbeta\ngamma\n");
const entry = {
  name: "fs",
  command: Deno.execPath(),
  args: ["run", "-A", "--quiet", SERVER, worktree],
};
const args = { path: `${worktree}/notes.txt` };
// What svc hands the server: the safe set and the proxy and certificate settings (behind a
// TLS-intercepting proxy the server cannot download itself without them).
const BARE_ENV = { ...getDefaultEnvironment(), ...networkEnv() };

try {
  // The server's own start: spawn, then the answer to an initialize written at once.
  const starts: number[] = [];
  for (let i = 0; i < ROUNDS; i++) starts.push(await serverStart());
  report("calibration: server-filesystem start to first answer", starts);
  const plugins = await loadPlugins({ names: ["svc-core-mcp"], trustLocal: false, worktree });
  const runtime = new Runtime({
    worktree,
    config: ConfigSchema.parse({ "mcp.servers": [entry], tool_permission: { mcp: "allow" } }),
    tools: plugins.tools,
    owners: plugins.owners,
    plugins,
  });
  const clients = clientsFor(runtime.added.host("svc-core-mcp"), worktree);
  const signal = new AbortController().signal;
  // Rounds alternate between the bare client and mcp_connect; the first of each loads code.
  const bareConnects: number[] = [];
  const connects: number[] = [];
  for (let i = 0; i < ROUNDS + 1; i++) {
    let start = performance.now();
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(
      new StdioClientTransport({ ...entry, env: BARE_ENV, stderr: "ignore" }),
    );
    await client.listTools();
    if (i > 0) bareConnects.push(performance.now() - start);
    await client.close();
    start = performance.now();
    const [outcome] = await clients.connect(runtime.config["mcp.servers"], {
      name: "fs",
      signal,
      sandbox: commandSandbox(runtime),
    });
    if (!outcome.ok) throw new Error(outcome.text);
    if (i > 0) connects.push(performance.now() - start);
    if (i < ROUNDS) await clients.disconnect(runtime.config["mcp.servers"][0]);
  }
  report("calibration: bare client start, initialize, list", bareConnects);
  report("mcp_connect: start, negotiate, list, import", connects, "ms", "< 300 ms");
  report("mcp_connect over the bare client's connect", [median(connects) - median(bareConnects)]);

  const raw = new Client({ name: "bench", version: "1" });
  await raw.connect(
    new StdioClientTransport({ ...entry, env: BARE_ENV, stderr: "ignore" }),
  );
  const tools = servedTools(runtime, { audit: () => Promise.resolve() });
  // Rounds alternate between the two, so neither gains from running second.
  const [bare, viaSvc] = await perCall([
    () => raw.callTool({ name: "read_text_file", arguments: args }),
    async () => {
      const result = await tools.call("fs.read_text_file", args, signal);
      if (!result.ok) throw new Error(result.content);
    },
  ]);
  await raw.close();
  report("bare client: read_text_file per call", bare);
  report("svc imported fs.read_text_file per call", viaSvc);
  report(
    "imported call overhead over the bare client",
    [median(viaSvc) - median(bare)],
    "ms",
    "< 2 ms",
  );
  await clients.closeAll();
} finally {
  await Deno.remove(worktree, { recursive: true });
}

/** Milliseconds per call of each of `calls`, one figure per round of CALLS sequential calls. */
async function perCall(calls: Array<() => Promise<unknown>>): Promise<number[][]> {
  for (const call of calls) for (let i = 0; i < 50; i++) await call();
  const rounds: number[][] = calls.map(() => []);
  for (let round = 0; round < 6; round++) {
    for (const [index, call] of calls.entries()) {
      const start = performance.now();
      for (let i = 0; i < CALLS; i++) await call();
      rounds[index].push((performance.now() - start) / CALLS);
    }
  }
  return rounds;
}

async function serverStart(): Promise<number> {
  const start = performance.now();
  const child = new Deno.Command(entry.command, {
    args: entry.args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    }) + "\n",
  ));
  const reader = child.stdout.getReader();
  await reader.read();
  const elapsed = performance.now() - start;
  reader.releaseLock();
  await writer.close();
  await child.stdout.cancel();
  child.kill("SIGKILL");
  await child.status;
  return elapsed;
}
