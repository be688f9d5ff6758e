/**
 * MCP tools/call round trips per second over stdio (`svc mcp`) and streamable HTTP (POST /mcp of
 * `svc serve`), with the official v2 client in both eras: sequential calls of file_read.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { listeningUrl, MAIN, report } from "./_util.ts";

const CALLS = 300;
const home = await Deno.makeTempDir();
const cwd = await Deno.makeTempDir();
await Deno.writeTextFile(`${cwd}/notes.txt`, "alpha\nbeta\n");
await Deno.mkdir(`${cwd}/.svc`);
// A dead provider address: serving MCP never talks to the model backend.
await Deno.writeTextFile(
  `${cwd}/.svc/config.json`,
  JSON.stringify({ base_url: "http://127.0.0.1:9", model: "m", connect_check: false }),
);
const env = { HOME: home, PATH: Deno.env.get("PATH") ?? "" };

try {
  for (const era of ["auto", "legacy"] as const) {
    const client = newClient(era);
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "-A", "--quiet", MAIN, "mcp"],
        cwd,
        env,
        stderr: "ignore",
      }),
    );
    await measure(client, `stdio, ${label(era)}`);
    await client.close();
  }
  const serve = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "serve", "--port", "0"],
    cwd,
    env,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const base = await listeningUrl(serve.stderr);
    const token = (await Deno.readTextFile(`${home}/.config/svc/serve_token`)).trim();
    const requestInit = { headers: { authorization: `Bearer ${token}` } };
    for (const era of ["auto", "legacy"] as const) {
      const client = newClient(era);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit }),
      );
      await measure(client, `HTTP, ${label(era)}`);
      await client.close();
    }
  } finally {
    serve.kill("SIGTERM");
    await serve.status;
  }
} finally {
  await Deno.remove(home, { recursive: true });
  await Deno.remove(cwd, { recursive: true });
}

function newClient(era: "auto" | "legacy"): Client {
  return new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: era } });
}

function label(era: "auto" | "legacy"): string {
  return era === "auto" ? "2026-07-28" : "2025-11-25";
}

async function measure(client: Client, name: string): Promise<void> {
  const call = () => client.callTool({ name: "file_read", arguments: { path: "notes.txt" } });
  for (let i = 0; i < 30; i++) await call();
  const rates: number[] = [];
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) await call();
    rates.push(CALLS / ((performance.now() - start) / 1000));
  }
  report(`MCP tools/call, ${name}, sequential`, rates, "calls/s");
}
