/**
 * A streamable-HTTP front for `svc mcp`, so that HTTP-only MCP test tools (the official
 * conformance suite) can reach svc's stdio server: each `initialize` starts one `svc mcp` child
 * (its own session, `Mcp-Session-Id`), later POSTs of that session are written to the child's
 * stdin, and a request is answered as SSE with every line the child writes until the answer to
 * its id (notifications included). DELETE ends the child. Test tooling, not part of svc.
 *
 *   deno run -A scripts/mcp_stdio_bridge.ts [--port 8798] [--path <worktree>]
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { port: { type: "string", default: "8798" }, path: { type: "string" } },
});
const MAIN = new URL("../main.ts", import.meta.url).pathname;

interface Child {
  stdin: WritableStreamDefaultWriter<Uint8Array>;
  listeners: Set<(message: Record<string, unknown>) => void>;
  process: Deno.ChildProcess;
}
const sessions = new Map<string, Child>();
const encoder = new TextEncoder();

function start(): Child {
  const args = [
    "run",
    "-A",
    "--quiet",
    MAIN,
    "mcp",
    ...(values.path ? ["--path", values.path] : []),
  ];
  const process = new Deno.Command(Deno.execPath(), {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const child: Child = { stdin: process.stdin.getWriter(), listeners: new Set(), process };
  void (async () => {
    let buffer = "";
    for await (const text of process.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += text;
      let at: number;
      while ((at = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (!line.trim()) continue;
        const message = JSON.parse(line);
        for (const listener of [...child.listeners]) listener(message);
      }
    }
  })();
  return child;
}

Deno.serve({ port: Number(values.port), hostname: "127.0.0.1" }, async (request) => {
  const id = request.headers.get("mcp-session-id") ?? "";
  if (request.method === "DELETE") {
    sessions.get(id)?.process.kill();
    sessions.delete(id);
    return new Response(null, { status: 200 });
  }
  if (request.method !== "POST") return new Response("no GET stream", { status: 405 });
  const body = await request.json();
  let session = id;
  if (body.method === "initialize") {
    session = crypto.randomUUID();
    sessions.set(session, start());
  }
  const child = sessions.get(session);
  if (!child) return new Response("unknown session", { status: 404 });
  await child.stdin.write(encoder.encode(`${JSON.stringify(body)}\n`));
  if (body.id === undefined) return new Response(null, { status: 202 });
  let listener: (message: Record<string, unknown>) => void;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      listener = (message) => {
        const answer = message.id === body.id && !("method" in message);
        if (answer) child.listeners.delete(listener);
        try {
          controller.enqueue(
            encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`),
          );
          if (answer) controller.close();
        } catch {
          child.listeners.delete(listener); // the client went away
        }
      };
      child.listeners.add(listener);
    },
    cancel() {
      child.listeners.delete(listener);
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "mcp-session-id": session },
  });
});
