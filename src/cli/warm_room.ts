/**
 * Makes a warm svc's process act as the `svc run` that handed it a run: the client's working
 * folder and environment, its standard streams (relayed over the socket), its terminals and their
 * size (as the client reports them) and its exit. svc's code and the plugins' look these up when
 * they use them (nothing reads them at import), so the run behaves as it would in the client's
 * own process. A warm svc serves one run and exits, so nothing here is ever undone.
 */
import { FRAME, frame, type WarmRequest, writeAll } from "./warm_frames.ts";

/** The room's side of the connection. */
export interface Room {
  /** Sends a frame after everything sent before it. */
  send(type: number, payload?: Uint8Array | string): void;
  /** Resolves when everything sent so far is written (or the client is gone). */
  drained(): Promise<void>;
  /** Feeds the run's standard input with a frame's bytes; null ends it. */
  stdin(bytes: Uint8Array | null): void;
}

/** Opens the room on `conn` for `request`: after this the process is the client's. */
export function enterRoom(conn: Deno.Conn, request: WarmRequest): Room {
  let chain = Promise.resolve();
  let gone = false;
  let exiting = false;
  const send = (type: number, payload?: Uint8Array | string) => {
    if (gone) return;
    const bytes = frame(type, payload);
    chain = chain.then(() => writeAll(conn, bytes)).catch(() => {
      gone = true;
    });
  };

  Deno.chdir(request.cwd);
  for (const name of Object.keys(Deno.env.toObject())) {
    if (!(name in request.env)) Deno.env.delete(name);
  }
  for (const [name, value] of Object.entries(request.env)) Deno.env.set(name, value);

  const output = (type: number, terminal: boolean) => ({
    writeSync(bytes: Uint8Array): number {
      if (!exiting) send(type, bytes.slice());
      return bytes.length;
    },
    write(bytes: Uint8Array): Promise<number> {
      return Promise.resolve(this.writeSync(bytes));
    },
    get writable(): WritableStream<Uint8Array> {
      return new WritableStream({ write: (bytes) => void this.writeSync(bytes) });
    },
    isTerminal: () => terminal,
    close() {},
  });
  const stdout = output(FRAME.stdout, request.terminal.stdout);
  const stderr = output(FRAME.stderr, request.terminal.stderr);
  Object.defineProperty(Deno, "stdout", { value: stdout, configurable: true, writable: true });
  Object.defineProperty(Deno, "stderr", { value: stderr, configurable: true, writable: true });

  const size = request.terminal.size;
  Deno.consoleSize = () => {
    if (!size) throw new Deno.errors.NotSupported("the client has no terminal");
    return { ...size };
  };

  const encoder = new TextEncoder();
  const line = (args: unknown[]) =>
    encoder.encode(
      args.map((a) => typeof a === "string" ? a : Deno.inspect(a, { colors: false })).join(" ") +
        "\n",
    );
  for (const name of ["log", "info", "debug"] as const) {
    console[name] = (...args: unknown[]) => void stdout.writeSync(line(args));
  }
  for (const name of ["error", "warn"] as const) {
    console[name] = (...args: unknown[]) => void stderr.writeSync(line(args));
  }

  // Standard input is the client's, asked for on first read (only `--prompt -` reads it).
  let feed: ReadableStreamDefaultController<Uint8Array> | undefined;
  let asked = false;
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      feed = controller;
    },
    pull() {
      if (!asked) send(FRAME.needStdin);
      asked = true;
    },
  }, { highWaterMark: 0 });
  Object.defineProperty(Deno, "stdin", {
    value: { readable, isTerminal: () => request.terminal.stdin, close() {} },
    configurable: true,
    writable: true,
  });

  // Deno.exit (a second Ctrl-C) ends the run: its output, then the code, then the process.
  const exit = Deno.exit;
  Deno.exit = ((code?: number) => {
    if (exiting) return undefined as never;
    exiting = true;
    const status = code ?? 0;
    send(FRAME.exit, String(status));
    void chain.finally(() => exit(status));
    return undefined as never;
  }) as typeof Deno.exit;

  return {
    send,
    drained: () => chain,
    stdin(bytes) {
      try {
        if (bytes) feed?.enqueue(bytes);
        else feed?.close();
      } catch {
        // the run stopped reading
      }
    },
  };
}
