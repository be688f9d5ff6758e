/**
 * `svc run`'s warm start: when a warm svc of this build waits on its socket (warm_server.ts), the
 * run is handed to it (command line, working folder, environment, which streams are terminals)
 * and this process only relays: the run's output to its own stdout and stderr, its stdin when the
 * run reads it, its signals (Ctrl-C, SIGTERM, SIGHUP) to the run, and the run's exit code. A run
 * starts in a few milliseconds instead of loading svc's code (docs/performance.md). Without a warm
 * svc, or when it refuses, the run is this process's own as before, and a warm svc is started for
 * the next one.
 */
import { BUILD_ID } from "../util/build_id.ts";
import { FRAME, frame, readFrames, type WarmRequest, writeAll } from "./warm_frames.ts";
import { type WarmPlace, warmPlace } from "./warm_socket.ts";
import { writeAllSync } from "../util/write_all.ts";

/** What became of a handed run: its exit code, or why this process must run it itself. */
export type WarmOutcome = { code: number } | { cold: "none" | "busy" };

const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const SIGNAL_NUMBER = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
/** After a second Ctrl-C, how long the warm svc has to end the run before this process exits. */
const ABANDON_MS = 2_000;

/**
 * Hands `svc <args>` to the warm svc. `{ cold: "none" }`: there is none, or it refused the run
 * (start one after the run); `{ cold: "busy" }`: one answered but did not take the run (another
 * run took it; its successor starts after that run).
 */
export async function runWarm(args: string[]): Promise<WarmOutcome> {
  const place = warmPlace();
  if (place === null || !ownSocket(place)) return { cold: "none" };
  const { socket } = place;
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path: socket });
  } catch {
    return { cold: "none" };
  }
  let cwd: string;
  try {
    cwd = Deno.cwd();
  } catch {
    conn.close();
    return { cold: "busy" }; // the folder is gone: svc run itself says so
  }
  const request: WarmRequest = {
    build: BUILD_ID!,
    argv: args,
    cwd,
    env: Deno.env.toObject(),
    umask: place.umask,
    terminal: {
      stdin: Deno.stdin.isTerminal(),
      stdout: Deno.stdout.isTerminal(),
      stderr: Deno.stderr.isTerminal(),
      size: consoleSize(),
    },
  };
  const frames = readFrames(conn);
  try {
    await writeAll(conn, frame(FRAME.request, JSON.stringify(request)));
    const first = await frames.next();
    if (first.done || first.value.type !== FRAME.accepted) {
      conn.close();
      return { cold: !first.done && first.value.type === FRAME.refused ? "none" : "busy" };
    }
  } catch {
    conn.close();
    return { cold: "busy" };
  }
  return { code: await relay(conn, frames) };
}

function consoleSize(): { columns: number; rows: number } | null {
  try {
    return Deno.consoleSize();
  } catch {
    return null; // no terminal
  }
}

/** True when the socket is this user's (one someone else put there gets nothing). */
function ownSocket(place: WarmPlace): boolean {
  try {
    const info = Deno.lstatSync(place.socket);
    return info.isSocket === true && info.uid === place.uid;
  } catch {
    return false;
  }
}

/** Relays an accepted run until its exit code; returns the code. */
async function relay(
  conn: Deno.UnixConn,
  frames: AsyncGenerator<{ type: number; payload: Uint8Array }>,
): Promise<number> {
  let received: keyof typeof SIGNAL_NUMBER | undefined;
  let interrupts = 0;
  let abandon: ReturnType<typeof setTimeout> | undefined;
  const listeners = FORWARDED.map((signal) => {
    const listener = () => {
      received ??= signal;
      writeAll(conn, frame(FRAME.signal, signal)).catch(() => {});
      // A second Ctrl-C quits at once in the warm svc too; if it does not answer, leave it.
      if (signal === "SIGINT" && ++interrupts === 2) {
        abandon = setTimeout(() => conn.close(), ABANDON_MS);
      }
    };
    Deno.addSignalListener(signal, listener);
    return [signal, listener] as const;
  });
  try {
    for await (const { type, payload } of frames) {
      if (type === FRAME.stdout || type === FRAME.stderr) {
        const out = type === FRAME.stdout ? Deno.stdout : Deno.stderr;
        try {
          writeAllSync(out, payload);
        } catch (err) {
          // A closed pipe (`svc run ... | head -1`): the run stops as on a hang-up.
          const name = type === FRAME.stdout ? "standard output" : "standard error";
          console.error(`svc run: cannot write to ${name}: ${(err as Error).message}`);
          return 1;
        }
      } else if (type === FRAME.needStdin) void pumpStdin(conn);
      else if (type === FRAME.exit) return Number(new TextDecoder().decode(payload)) || 0;
    }
  } catch (err) {
    if (interrupts >= 2) return 130;
    console.error(`svc run: lost the warm svc running this turn: ${(err as Error).message}`);
    return 1;
  } finally {
    // Only when set: the first touch of the timer globals loads Deno's Node timers (about 10 ms,
    // most of what this process would otherwise cost).
    if (abandon !== undefined) clearTimeout(abandon);
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    try {
      conn.close();
    } catch {
      // closed on a second Ctrl-C
    }
  }
  // The warm svc ended without a code: killed by the signal this process passed on, or crashed.
  if (received) return 128 + SIGNAL_NUMBER[received];
  console.error("svc run: the warm svc running this turn ended without an exit code");
  return 1;
}

async function pumpStdin(conn: Deno.UnixConn): Promise<void> {
  try {
    for await (const chunk of Deno.stdin.readable) await writeAll(conn, frame(FRAME.stdin, chunk));
    await writeAll(conn, frame(FRAME.stdinEnd));
  } catch {
    // the run ended first
  }
}
