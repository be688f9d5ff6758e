/**
 * svc's MCP client under the official conformance suite's client scenarios (not part of
 * `deno task test`; docs/mcp_client.md#conformance):
 *
 *   deno run -A npm:@modelcontextprotocol/conformance@0.1.16 client --suite auth \
 *     --command "deno run -A scripts/mcp_conformance_client.ts"
 *
 * The suite runs this with the server's URL as the last argument. It does what a person would:
 * writes a temp HOME whose config names the server (a pre-registered client's id and secret from
 * the scenario's context go in `oauth`), runs `svc mcp login` with a $BROWSER script that follows
 * the authorization redirect with curl, then connects through svc's connection code, lists the
 * tools and calls each; a connection that says to sign in again (a step-up) logs in once more.
 * A machine-client scenario (client_credentials) configures `oauth.grant` and connects directly.
 */
import { openConnection } from "../plugins/svc-core-mcp/src/client/connection.ts";
import { McpServerSchema } from "../src/config/schema.ts";
import { DEFAULT_COMMAND_LIMITS } from "../src/config/keys.ts";

const url = Deno.args.at(-1)!;
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
const context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
const main = new URL("../main.ts", import.meta.url).pathname;

const home = await Deno.makeTempDir({ prefix: "svc-conformance-" });
const oauth: Record<string, string> = {};
if (context.client_id) oauth.client_id = context.client_id;
if (context.client_secret) oauth.client_secret = context.client_secret;
// A machine client (client_credentials): its admin names the authorization server it trusts
// with the credentials (here found as svc's own sign-in would) and, for private_key_jwt, the
// key's file; there is no login.
const machine = scenario.startsWith("auth/client-credentials");
if (machine) {
  oauth.grant = "client_credentials";
  const { discoverOAuthServerInfo } = await import("@modelcontextprotocol/client");
  const found = await discoverOAuthServerInfo(url);
  oauth.issuer = found.authorizationServerMetadata?.issuer ?? found.authorizationServerUrl;
  if (context.private_key_pem) {
    oauth.private_key_file = `${home}/client-key.pem`;
    await Deno.writeTextFile(oauth.private_key_file, context.private_key_pem, { mode: 0o600 });
    oauth.signing_algorithm = context.signing_algorithm ?? "ES256";
  }
}
// svc publishes no client ID metadata document: one is used only when configured, as here.
if (scenario === "auth/basic-cimd") {
  oauth.client_metadata_url = "https://conformance-test.local/client-metadata.json";
}
const entry = McpServerSchema.parse({
  name: "conf",
  transport: "http",
  url,
  timeout: 10,
  ...(Object.keys(oauth).length ? { oauth } : {}),
});
await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
await Deno.writeTextFile(
  `${home}/.config/svc/config.json`,
  JSON.stringify({ "mcp.servers": [entry] }),
);
const browser = `${home}/browser.sh`;
await Deno.writeTextFile(browser, '#!/bin/sh\nexec curl -s -o /dev/null -L "$1"\n');
await Deno.chmod(browser, 0o755);
Deno.env.set("HOME", home);

async function login(): Promise<boolean> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", main, "mcp", "login", "conf", "--timeout", "10"],
    cwd: home,
    env: { HOME: home, BROWSER: browser },
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  console.error(`svc mcp login: exit ${out.code}\n${text}`);
  return out.code === 0;
}

async function connectAndCall(): Promise<void> {
  const connection = await openConnection(entry, {
    worktree: home,
    signal: AbortSignal.timeout(20_000),
    sandbox: { mode: "danger-full-access", limits: DEFAULT_COMMAND_LIMITS } as never,
    events: { onEnded: () => {}, onToolsChanged: () => {} },
  });
  try {
    const tools = await connection.listTools();
    console.error(`tools: ${tools.map((t) => t.name).join(", ")}`);
    for (const tool of tools) {
      const result = await connection.callTool(tool.name, {}, {
        signal: AbortSignal.timeout(10_000),
        ask: () => Promise.resolve(null),
      });
      console.error(`${tool.name}: ${JSON.stringify(result).slice(0, 200)}`);
    }
  } finally {
    await connection.close();
  }
}

let code = 1;
try {
  if (machine || await login()) {
    // A person signs in again when told to; this one gives up after three sign-ins in all.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await connectAndCall();
        code = 0;
        break;
      } catch (err) {
        console.error(`connect: ${(err as Error).message}`);
        const again = /run svc mcp login/.test(String((err as Error).message)) && attempt < 2;
        if (!again || !(await login())) break;
      }
    }
  }
} finally {
  await Deno.remove(home, { recursive: true }).catch(() => {});
}
Deno.exit(code);
