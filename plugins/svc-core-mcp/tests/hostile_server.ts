/**
 * A small MCP server over stdio that misbehaves on purpose, one way per mode (first argument).
 * It speaks newline-delimited JSON-RPC by hand so it can break the protocol. A second argument
 * names a file it appends every message it receives to (and, in `stubborn`, its pid).
 *
 * Modes: normal, banner, crash, garbage, stall, huge, quit-on-probe, old-version,
 * input-required, oversized, invalid-list, stubborn.
 */
const [mode = "normal", log] = Deno.args;
const encoder = new TextEncoder();
const write = (text: string): void => {
  const bytes = encoder.encode(text);
  for (let done = 0; done < bytes.length;) done += Deno.stdout.writeSync(bytes.subarray(done));
};
const send = (message: Record<string, unknown>): void =>
  write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const MODERN = mode === "input-required";
const complete = (result: Record<string, unknown>) =>
  MODERN ? { resultType: "complete", ...result } : result;

if (mode === "stubborn") {
  Deno.addSignalListener("SIGTERM", () => {});
  Deno.addSignalListener("SIGINT", () => {});
  if (log) Deno.writeTextFileSync(log, `${Deno.pid}\n`);
}
if (mode === "banner") write("Starting hostile-fixture v1 ... ready!\n");

const echo = {
  name: "echo",
  description: "Echo text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

function tools(): Record<string, unknown>[] {
  if (mode === "invalid-list") {
    return [echo, { ...echo, name: "odd", inputSchema: { type: "string" } }];
  }
  if (mode !== "oversized") return [echo];
  const big: Record<string, unknown> = {};
  for (let i = 0; i < 400; i++) big[`field_${i}`] = { type: "string", description: "x".repeat(40) };
  return [
    echo,
    { ...echo, name: "wordy", description: `Line one\u0007\u001b[31m ${"blah ".repeat(1000)}` },
    { ...echo, name: "bad name" },
    { ...echo, name: "huge_schema", inputSchema: { type: "object", properties: big } },
    { ...echo, name: "x".repeat(128) },
  ];
}

let initialized = false;

function handle(message: Record<string, unknown>): void {
  if (log && mode !== "stubborn") {
    Deno.writeTextFileSync(log, `${JSON.stringify(message)}\n`, { append: true });
  }
  const { id, method } = message;
  if (id === undefined || typeof method !== "string") return; // notifications, responses
  const params = (message.params ?? {}) as Record<string, unknown>;
  if (method === "server/discover") {
    if (mode === "quit-on-probe") Deno.exit(1);
    if (mode === "old-version") {
      return send({
        id,
        error: {
          code: -32022,
          message: "Unsupported protocol version",
          data: { supported: ["2025-06-18", "2025-03-26"], requested: "2026-07-28" },
        },
      });
    }
    if (MODERN) {
      return send({
        id,
        result: complete({
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {} },
          ttlMs: 0,
          cacheScope: "private",
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "hostile", version: "1" } },
        }),
      });
    }
    return send({ id, error: { code: -32601, message: "Method not found" } });
  }
  if (method === "initialize") {
    initialized = true;
    const asked = String(params.protocolVersion);
    const known = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
    const offered = mode === "old-version"
      ? "2025-06-18"
      : known.includes(asked)
      ? asked
      : known[0];
    return send({
      id,
      result: {
        protocolVersion: offered,
        capabilities: { tools: {} },
        serverInfo: { name: "hostile", version: "1" },
      },
    });
  }
  if (!initialized && !MODERN && mode === "quit-on-probe") Deno.exit(1);
  if (method === "ping") return send({ id, result: complete({}) });
  if (method === "tools/list") {
    const cache = MODERN ? { ttlMs: 0, cacheScope: "private" } : {};
    return send({ id, result: complete({ tools: tools(), ...cache }) });
  }
  if (method === "tools/call") return call(id, params);
  send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
}

function call(id: unknown, params: Record<string, unknown>): void {
  const text = String((params.arguments as Record<string, unknown> | undefined)?.text ?? "");
  switch (mode) {
    case "crash":
      Deno.stderr.writeSync(encoder.encode("boom: simulated crash in the tool\n"));
      Deno.exit(3);
      break;
    case "garbage":
      write("{this is not json at all\n");
      return;
    case "stall":
      return;
    case "huge":
      write(
        `${
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            result: { content: [{ type: "text", text: "y".repeat(17 << 20) }] },
          })
        }\n`,
      );
      return;
    case "input-required": {
      // The modern era's question mid-call: input_required with an elicitation, then the retry
      // carries the answer.
      const answers = params.inputResponses as Record<string, unknown> | undefined;
      if (answers && params.requestState === "need-more") {
        const reply = { type: "text", text: `echo: ${text}; answer ${JSON.stringify(answers.ok)}` };
        return send({ id, result: complete({ content: [reply] }) });
      }
      const ok = {
        method: "elicitation/create",
        params: {
          message: "Echo it?",
          requestedSchema: { type: "object", properties: { sure: { type: "boolean" } } },
        },
      };
      return send({
        id,
        result: { resultType: "input_required", inputRequests: { ok }, requestState: "need-more" },
      });
    }
  }
  send({ id, result: complete({ content: [{ type: "text", text: `echo: ${text}` }] }) });
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
// End of input: a well-behaved server exits; the stubborn one keeps running.
if (mode === "stubborn") setInterval(() => {}, 1000);
