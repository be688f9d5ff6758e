/**
 * `svc acp`: svc as an Agent Client Protocol agent on stdio (newline-delimited JSON-RPC), built on
 * the official SDK (`@agentclientprotocol/sdk`, stable ACP v1). stdout carries only the protocol.
 */
import * as acp from "@agentclientprotocol/sdk";
import { AcpAgent, type AcpAgentOptions } from "./agent.ts";

export { type AcpAgentOptions, agentInitialize } from "./agent.ts";

/** The agent app: each ACP method handled by one AcpAgent (one per connection). */
export function acpApp(options: AcpAgentOptions): acp.AgentApp {
  const agent = new AcpAgent(options);
  return acp.agent({ name: "svc" })
    .onRequest("initialize", ({ params }) => agent.initialize(params))
    .onRequest("session/new", ({ params, client }) => agent.newSession(params, client))
    .onRequest("session/load", ({ params, client }) => agent.loadSession(params, client))
    .onRequest("session/list", ({ params }) => agent.listSessions(params))
    .onRequest("session/prompt", ({ params, signal }) => agent.prompt(params, signal))
    .onRequest("session/set_mode", ({ params }) => agent.setMode(params))
    .onRequest("session/set_config_option", ({ params }) => agent.setConfigOption(params))
    .onNotification("session/cancel", ({ params }) => agent.cancel(params));
}

/** Serves the agent on this process's stdin and stdout until the editor closes the stream. */
export function serveAcpStdio(options: AcpAgentOptions): acp.AgentConnection {
  const stream = acp.ndJsonStream(Deno.stdout.writable, Deno.stdin.readable);
  return acpApp(options).connect(stream);
}
