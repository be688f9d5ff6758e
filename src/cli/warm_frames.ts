/**
 * The wire between `svc run` and a warm svc (warm_client.ts, warm_server.ts): frames of one type
 * byte, a four-byte big-endian length and that many bytes, over a Unix socket in svc's own folder.
 */

/** Frame types. The client sends REQUEST first; the server answers ACCEPTED or REFUSED. */
export const FRAME = {
  /** client: the run, as JSON (WarmRequest) */
  request: 1,
  /** client: bytes of its standard input, after the server asked with needStdin */
  stdin: 2,
  /** client: its standard input ended */
  stdinEnd: 3,
  /** client: a signal it received (SIGINT, SIGTERM, SIGHUP), by name */
  signal: 4,
  /** server: it runs the request; from here on the client cannot run it itself */
  accepted: 11,
  /**
   * server: it will not run the request (the reason, as text) and exits; the client runs it
   * itself and starts a warm svc of its own for the next run
   */
  refused: 12,
  stdout: 13,
  stderr: 14,
  /** server: the run reads standard input (`--prompt -`) */
  needStdin: 15,
  /** server: the run's exit code, as decimal text; the last frame */
  exit: 16,
} as const;

/** Largest frame accepted: a request carries argv and the environment, output comes in pieces. */
export const MAX_FRAME_BYTES = 16 << 20;

/** What the client asks a warm svc to run, and what of its process the run must see. */
export interface WarmRequest {
  /** BUILD_ID of the client's svc; a server of another build refuses. */
  build: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The client's umask (a warm svc of another refuses). */
  umask: number;
  /** Whether the client's standard streams are terminals, and the terminal's size if one is. */
  terminal: {
    stdin: boolean;
    stdout: boolean;
    stderr: boolean;
    size: { columns: number; rows: number } | null;
  };
}

const encoder = new TextEncoder();

/** One frame's bytes. */
export function frame(type: number, payload: Uint8Array | string = new Uint8Array()): Uint8Array {
  const body = typeof payload === "string" ? encoder.encode(payload) : payload;
  const out = new Uint8Array(5 + body.length);
  out[0] = type;
  new DataView(out.buffer).setUint32(1, body.length);
  out.set(body, 5);
  return out;
}

/** Writes every byte (a socket write may take part of them). */
export async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

/**
 * The frames arriving on `conn`, in order; ends at end of stream. A frame over MAX_FRAME_BYTES or
 * a stream ending inside a frame throws.
 */
export async function* readFrames(
  conn: Deno.Conn,
): AsyncGenerator<{ type: number; payload: Uint8Array }> {
  let buffer = new Uint8Array(0);
  const chunk = new Uint8Array(64 * 1024);
  while (true) {
    while (buffer.length >= 5) {
      const length = new DataView(buffer.buffer, buffer.byteOffset).getUint32(1);
      if (length > MAX_FRAME_BYTES) throw new Error(`a warm svc frame of ${length} bytes`);
      if (buffer.length < 5 + length) break;
      yield { type: buffer[0], payload: buffer.slice(5, 5 + length) };
      buffer = buffer.subarray(5 + length);
    }
    const n = await conn.read(chunk);
    if (n === null) {
      if (buffer.length) throw new Error("a warm svc connection ended inside a frame");
      return;
    }
    const joined = new Uint8Array(buffer.length + n);
    joined.set(buffer);
    joined.set(chunk.subarray(0, n), buffer.length);
    buffer = joined;
  }
}
