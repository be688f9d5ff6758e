import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/server";
import { StdioEra } from "./stdio_era.ts";

/** Longest accepted line, in bytes (as POST /mcp's body). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

type Id = string | number;

/**
 * Newline-delimited JSON-RPC over a byte stream, for the SDK's `serveStdio`. Unlike the SDK's own
 * stdio transport it answers what it cannot pass on, as POST /mcp does: a line that is not JSON
 * gets -32700, a batch or a value that is not a JSON-RPC message -32600, an overlong line -32600,
 * and after a modern opening a request without its `_meta` envelope -32602 (stdio_era.ts).
 * At the end of input it waits until every request it passed on has been answered (or cancelled)
 * before it reports the connection closed, so a client that writes its requests and closes its end
 * still gets every answer. `drained` resolves once it is closed.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Resolves when the transport is closed: end of input with nothing pending, or `close()`. */
  readonly drained: Promise<void>;
  #input: ReadableStream<Uint8Array>;
  #output: WritableStreamDefaultWriter<Uint8Array>;
  #pending = new Set<Id>();
  #ended = false;
  #closed = false;
  #writing: Promise<void> = Promise.resolve();
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #resolveDrained!: () => void;
  #encoder = new TextEncoder();
  /** POST /mcp's `_meta` rule for the requests after a modern opening (stdio_era.ts). */
  #era = new StdioEra();

  constructor(input: ReadableStream<Uint8Array>, output: WritableStream<Uint8Array>) {
    this.#input = input;
    this.#output = output.getWriter();
    this.drained = new Promise((resolve) => this.#resolveDrained = resolve);
  }

  start(): Promise<void> {
    void this.#read();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const written = this.#write(message);
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id !== undefined) this.#settle(message.id);
    }
    return written;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {});
    await this.#writing;
    this.onclose?.();
    this.#resolveDrained();
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    let skipping = false;
    this.#reader = this.#input.getReader();
    try {
      while (!this.#closed) {
        const { done, value } = await this.#reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let at: number;
        while ((at = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, at);
          buffer = buffer.slice(at + 1);
          if (skipping) skipping = false;
          else this.#line(line);
        }
        if (buffer.length > MAX_LINE_BYTES) {
          if (!skipping) {
            this.#reply(null, -32600, `Invalid Request: a line over ${MAX_LINE_BYTES} bytes`);
          }
          skipping = true;
          buffer = "";
        }
      }
      buffer += decoder.decode();
      if (buffer.trim() && !skipping) this.#line(buffer);
    } catch (err) {
      this.onerror?.(err as Error);
    }
    this.#ended = true;
    this.#maybeFinish();
  }

  #line(raw: string): void {
    const line = raw.replace(/\r$/, "");
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#reply(null, -32700, "Parse error: the line is not valid JSON");
      return;
    }
    if (Array.isArray(value)) {
      this.#reply(
        null,
        -32600,
        "Invalid Request: JSON-RPC batches are not served on stdio; " +
          "send one message per line",
      );
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.#reply(idOf(value), -32600, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    if (isJSONRPCRequest(message)) {
      const refused = this.#era.check(message);
      if (refused) {
        void this.#write({ jsonrpc: "2.0", id: message.id, error: refused } as JSONRPCMessage)
          .catch((err) => this.onerror?.(err));
        return;
      }
      this.#pending.add(message.id);
    } else if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) this.#settle(id);
    }
    this.onmessage?.(message);
  }

  #reply(id: Id | null, code: number, message: string): void {
    void this.#write({ jsonrpc: "2.0", id, error: { code, message } } as JSONRPCMessage)
      .catch((err) => this.onerror?.(err));
  }

  #write(message: JSONRPCMessage): Promise<void> {
    const bytes = this.#encoder.encode(`${JSON.stringify(message)}\n`);
    const write = this.#writing.then(() => this.#output.write(bytes));
    this.#writing = write.catch(() => {});
    return write;
  }

  #settle(id: Id): void {
    this.#pending.delete(id);
    this.#maybeFinish();
  }

  #maybeFinish(): void {
    if (this.#ended && this.#pending.size === 0) void this.close();
  }
}

function idOf(value: unknown): Id | null {
  const id = value && typeof value === "object" ? (value as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
