/**
 * A permission-prompt MCP server on the v1 SDK, over stdio (docs/hooks.md, the headless
 * approver): its tool `approve` gets `{tool_name, input, tool_use_id}` and answers by the Bash
 * command it is asked about: one containing `slow` is never answered, `garbage` gets text that is
 * not JSON, `deny` gets `{"behavior":"deny","message":...}`, `rewrite` is allowed with the command
 * replaced by `touch rewritten`, and anything else is allowed with its input unchanged. A first
 * argument names a file it appends every request's arguments to (one JSON line each).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";

const [log] = Deno.args;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

const server = new McpServer({ name: "approve-fixture", version: "1.0.0" });
server.registerTool("approve", {
  description: "Answer a permission prompt",
  inputSchema: {
    tool_name: z.string(),
    input: z.record(z.string(), z.unknown()),
    tool_use_id: z.string(),
  },
}, async (args: { tool_name: string; input: Record<string, unknown>; tool_use_id: string }) => {
  if (log) Deno.writeTextFileSync(log, `${JSON.stringify(args)}\n`, { append: true });
  const command = String(args.input.command ?? "");
  if (command.includes("slow")) return await new Promise<never>(() => {});
  if (command.includes("garbage")) return text("sure, go ahead");
  if (command.includes("deny")) {
    return text(JSON.stringify({ behavior: "deny", message: `not on my watch: ${command}` }));
  }
  const updatedInput = command.includes("rewrite")
    ? { ...args.input, command: "touch rewritten" }
    : args.input;
  return text(JSON.stringify({ behavior: "allow", updatedInput }));
});
await server.connect(new StdioServerTransport());
