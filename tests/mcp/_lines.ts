/** Drives `svc mcp` with raw newline-delimited JSON-RPC on its stdin and stdout. */
import { TEST_MAIN as MAIN } from "../_support/builds.ts";

// deno-lint-ignore no-explicit-any
export type Message = Record<string, any>;

export interface LineSession {
  /** Writes one message (or raw text) as a line. */
  send(message: Message | string): Promise<void>;
  /** The next response with this id (notifications and other ids are kept in `lines`). */
  response(id: number): Promise<Message>;
  /** Every stdout line so far, parsed; a non-JSON line fails the session. */
  lines: Message[];
  /** Closes stdin and waits for the exit code and stderr. */
  finish(): Promise<{ code: number; stderr: string }>;
}

/** Spawns `svc mcp` in `cwd` with piped stdio. */
export function spawnMcp(cwd: string, env: Record<string, string>): LineSession {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "mcp"],
    cwd,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const lines: Message[] = [];
  const waiters = new Map<number, (m: Message) => void>();
  let failure: Error | null = null;
  const stderr = new Response(child.stderr).text();
  const reading = (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let at;
      while ((at = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        let message: Message;
        try {
          message = JSON.parse(line);
        } catch {
          failure = new Error(`stdout carried a non-JSON line: ${line}`);
          continue;
        }
        if (message.jsonrpc !== "2.0") failure = new Error(`not JSON-RPC: ${line}`);
        lines.push(message);
        if (typeof message.id === "number") waiters.get(message.id)?.(message);
      }
    }
    if (buffer.trim()) failure = new Error(`stdout ended mid-line: ${buffer}`);
  })();
  return {
    lines,
    async send(message) {
      const text = typeof message === "string" ? message : JSON.stringify(message);
      await writer.write(encoder.encode(`${text}\n`));
    },
    response(id) {
      const seen = lines.find((m) => m.id === id && !("method" in m));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no response to id ${id}`)), 8000);
        waiters.set(id, (m) => {
          clearTimeout(timer);
          resolve(m);
        });
      });
    },
    async finish() {
      await writer.close().catch(() => {});
      const status = await child.status;
      await reading;
      if (failure) throw failure;
      return { code: status.code, stderr: await stderr };
    },
  };
}
