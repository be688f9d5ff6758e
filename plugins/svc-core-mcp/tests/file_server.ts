/**
 * A small MCP server over stdio (legacy era, JSON-RPC by hand) whose tools touch files, so a test
 * can see what the server's process may read and write: `read` returns a file's text, `write`
 * writes one, each answering `refused: <error>` when the file system says no.
 */
const encoder = new TextEncoder();
const send = (message: Record<string, unknown>): void => {
  const bytes = encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  for (let done = 0; done < bytes.length;) done += Deno.stdout.writeSync(bytes.subarray(done));
};
const path = { type: "string" };
const TOOLS = [
  {
    name: "read",
    description: "Read a file",
    inputSchema: { type: "object", properties: { path }, required: ["path"] },
  },
  {
    name: "write",
    description: "Write a file",
    inputSchema: {
      type: "object",
      properties: { path, text: { type: "string" } },
      required: ["path", "text"],
    },
  },
];

function run(name: string, args: Record<string, string>): string {
  try {
    if (name === "read") return Deno.readTextFileSync(args.path);
    Deno.writeTextFileSync(args.path, args.text);
    return "written";
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

function handle(message: Record<string, unknown>): void {
  const { id, method } = message;
  if (id === undefined || typeof method !== "string") return;
  const params = (message.params ?? {}) as Record<string, unknown>;
  if (method === "initialize") {
    return send({
      id,
      result: {
        protocolVersion: String(params.protocolVersion),
        capabilities: { tools: {} },
        serverInfo: { name: "file-server", version: "1" },
      },
    });
  }
  if (method === "ping") return send({ id, result: {} });
  if (method === "tools/list") return send({ id, result: { tools: TOOLS } });
  if (method === "tools/call") {
    const text = run(String(params.name), (params.arguments ?? {}) as Record<string, string>);
    return send({ id, result: { content: [{ type: "text", text }] } });
  }
  send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
}

const decoder = new TextDecoder();
let buffer = "";
for await (const chunk of Deno.stdin.readable) {
  buffer += decoder.decode(chunk, { stream: true });
  let newline;
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
}
