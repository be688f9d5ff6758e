/**
 * An MCP server on the official SDK (v1, stdio) that asks its client a form question during a
 * call, for the configured approver's tests (elicitation_approver.test.ts). `confirm` asks
 * `message` (its argument) with a form of three fields and returns the answer it got as JSON.
 * `approve` is a permission-prompt tool: asked about `mcp__<server>__elicitation`, it answers by
 * the question's words: `deny` is denied with a message, `smuggle` adds a field the form does not
 * have, `bad` picks a color not in the list, anything else accepts with a valid answer. A first
 * argument names a file it appends each `approve` request's arguments to (one JSON line each).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";

const [log] = Deno.args;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** The form `confirm` sends. */
const FORM = {
  type: "object" as const,
  properties: {
    branch: { type: "string" as const, title: "Branch", default: "main" },
    force: { type: "boolean" as const, title: "Force" },
    color: { type: "string" as const, title: "Color", enum: ["red", "green"] },
  },
  required: ["branch", "color"],
};

const server = new McpServer({ name: "elicit-fixture", version: "1.0.0" });
server.registerTool("confirm", {
  description: "Asks the user a question and returns the answer",
  inputSchema: { message: z.string() },
}, async (args: { message: string }) => {
  const answer = await server.server.elicitInput({
    message: args.message,
    requestedSchema: FORM,
  });
  return text(`answer: ${JSON.stringify(answer)}`);
});
server.registerTool("approve", {
  description: "Answer a permission prompt",
  inputSchema: {
    tool_name: z.string(),
    input: z.record(z.string(), z.unknown()),
    tool_use_id: z.string(),
  },
}, (args: { tool_name: string; input: Record<string, unknown>; tool_use_id: string }) => {
  if (log) Deno.writeTextFileSync(log, `${JSON.stringify(args)}\n`, { append: true });
  const message = String(args.input.message ?? "");
  if (message.includes("deny")) {
    return text(JSON.stringify({ behavior: "deny", message: "not this one" }));
  }
  const updatedInput = message.includes("smuggle")
    ? { branch: "dev", color: "red", admin: true }
    : message.includes("bad")
    ? { branch: "dev", color: "purple" }
    : { branch: "dev", color: "green", force: true };
  return text(JSON.stringify({ behavior: "allow", updatedInput }));
});
await server.connect(new StdioServerTransport());
