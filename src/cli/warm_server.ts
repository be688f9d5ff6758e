/**
 * A warm svc (`svc __warm`, started by svc itself): a process that has loaded the code of
 * `svc run` ahead of time, rehearsed one run (warm_rehearsal.ts), and waits on its socket for one
 * real run. It reads none of the user's config, plugins or sessions before that run arrives, so
 * the run sees what a fresh process would. When the run comes it stops listening, becomes the
 * client's process (warm_room.ts), runs the command line as `svc run` would, sends the exit code,
 * starts its successor and exits. Idle for WARM_IDLE_MS, or when its socket is removed or taken
 * over by another warm svc, it exits.
 */
import { BUILD_ID } from "../util/build_id.ts";
import { basename, dirname, join } from "../util/path.ts";
import { launcherPath } from "../util/launcher.ts";
import { FRAME, frame, readFrames, type WarmRequest, writeAll } from "./warm_frames.ts";
import { rehearse } from "./warm_rehearsal.ts";
import { enterRoom } from "./warm_room.ts";
import { startupVariable, type WarmPlace, warmPlace } from "./warm_socket.ts";

/** How long a warm svc waits for a run before it exits. */
export const WARM_IDLE_MS = 15 * 60_000;
/** How long loading and rehearsing may take before a starting warm svc gives up and exits. */
const PRELOAD_LIMIT_MS = 20_000;
/** How long a starting warm svc keeps others from starting. */
const STARTING_MS = 30_000;
/** How often an idle warm svc looks whether its socket is still its own (one lstat). */
const WARM_CHECK_MS = 5_000;
/** How long a client that connected has to send its request. */
const REQUEST_TIMEOUT_MS = 5_000;
/** The client's signals a run reacts to; each is raised in this process when the client sends it. */
const SIGNALS = new Set(["SIGINT", "SIGTERM", "SIGHUP"]);

/**
 * Starts a warm svc for the next `svc run` of this build, in a session of its own (`setsid`) so
 * the terminal's signals and hang-up leave it alone; does not wait for it. While one is starting
 * (its `.starting` mark, younger than STARTING_MS, is there) no other is started.
 */
export function startWarm(): void {
  const launcher = launcherPath();
  const socket = warmPlace({ create: true })?.socket;
  if (!launcher || !socket) return;
  retireOtherBuilds(socket);
  const mark = `${socket}.starting`;
  try {
    if (Date.now() - (Deno.lstatSync(mark).mtime?.getTime() ?? 0) < STARTING_MS) return;
  } catch {
    // none is starting
  }
  try {
    Deno.writeTextFileSync(mark, "", { mode: 0o600 });
    new Deno.Command("setsid", {
      args: [launcher, "__warm"],
      cwd: "/",
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn().unref();
  } catch {
    // no setsid: no warm svc, the next run starts cold
    removeQuietly(mark);
  }
}

/** `svc __warm`: loads, listens, serves one run; returns the exit code. */
export async function serveWarm(): Promise<number> {
  const place = warmPlace({ create: true });
  if (place === null) return 2;
  const { socket } = place;
  const startup = startupEnv(Deno.env.toObject());
  let runCli;
  let listener: Deno.Listener<Deno.Conn, Deno.UnixAddr>;
  const staging = `${socket}.${Deno.pid}`;
  try {
    runCli = await preload();
    listener = Deno.listen({ transport: "unix", path: staging });
    // The rename replaces an older warm svc's socket at once; that one sees it and exits.
    Deno.renameSync(staging, socket);
  } catch {
    return 1;
  } finally {
    removeQuietly(`${socket}.starting`);
  }
  const ino = Deno.lstatSync(socket).ino;
  const ours = () => {
    try {
      return Deno.lstatSync(socket).ino === ino;
    } catch {
      return false;
    }
  };
  const conn = await firstRun(listener, ours);
  if (ours()) removeQuietly(socket);
  listener.close();
  if (!conn) return 0;
  const code = await serve(conn, runCli, (request) => refusal(request, place, startup));
  // The successor starts once this run is over, so it takes no CPU from it. A refused client
  // starts its own.
  if (code !== null) startWarm();
  return code ?? 0;
}

/**
 * Removes the sockets of other builds (an svc updated since they started): their warm svcs see it
 * within WARM_CHECK_MS and exit, instead of idling out. Also removes probe files a killed client
 * left (warm_socket.ts), once they are older than STARTING_MS.
 */
function retireOtherBuilds(socket: string): void {
  const name = basename(socket);
  const dir = dirname(socket);
  try {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      if (entry.name.endsWith(".sock") && entry.name !== name) removeQuietly(path);
      else if (entry.name.startsWith(".probe-") && olderThan(path, STARTING_MS)) {
        removeQuietly(path);
      }
    }
  } catch {
    // nothing to retire
  }
}

function olderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - (Deno.lstatSync(path).mtime?.getTime() ?? 0) > ms;
  } catch {
    return false;
  }
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // already gone
  }
}

/**
 * Loads the code of `svc run` (the command and the run's module graph) and rehearses one run
 * (warm_rehearsal.ts), which also loads the bundled plugins and Deno's timers, fetch and streams.
 * Nothing here reads the user's config or a worktree.
 */
async function preload(): Promise<(args: string[]) => Promise<number>> {
  // A start that hangs (it never should) must not leave a process behind: nothing waits for it.
  const guard = setTimeout(() => Deno.exit(1), PRELOAD_LIMIT_MS);
  const [{ runCli }] = await Promise.all([import("./program.ts"), import("./run_action.ts")]);
  await rehearse(runCli);
  clearTimeout(guard);
  return runCli;
}

/**
 * The first connection, or null when idle too long or when the socket is no longer this
 * process's (removed, or replaced by another warm svc): checked every WARM_CHECK_MS.
 */
async function firstRun(
  listener: Deno.Listener<Deno.Conn, Deno.UnixAddr>,
  ours: () => boolean,
): Promise<Deno.Conn | null> {
  const since = Date.now();
  let check: ReturnType<typeof setInterval> | undefined;
  const stop = new Promise<null>((resolve) => {
    check = setInterval(() => {
      if (!ours() || Date.now() - since >= WARM_IDLE_MS) resolve(null);
    }, WARM_CHECK_MS);
  });
  try {
    return await Promise.race([listener.accept(), stop]);
  } catch {
    return null;
  } finally {
    clearInterval(check);
  }
}

/**
 * Runs the client's request in this process and sends its output and exit code; returns the
 * code, or null when the request was refused.
 */
async function serve(
  conn: Deno.Conn,
  runCli: (args: string[]) => Promise<number>,
  refuse: (request: WarmRequest) => string | null,
): Promise<number | null> {
  const frames = readFrames(conn);
  const request = await firstFrame(frames);
  const problem = request ? refuse(request) : "no request";
  if (problem || !request) {
    await writeAll(conn, frame(FRAME.refused, problem ?? "")).catch(() => {});
    conn.close();
    return null;
  }
  const room = enterRoom(conn, request);
  room.send(FRAME.accepted);
  let done = false;
  // The client's input, signals and hang-up arrive while the run goes on.
  void (async () => {
    try {
      for await (const { type, payload } of frames) {
        if (type === FRAME.stdin) room.stdin(payload);
        else if (type === FRAME.stdinEnd) room.stdin(null);
        else if (type === FRAME.signal) {
          const name = new TextDecoder().decode(payload);
          if (SIGNALS.has(name)) Deno.kill(Deno.pid, name as Deno.Signal);
        }
      }
    } catch {
      // a broken frame: as if the client hung up
    }
    // The client is gone (killed, or its terminal closed): the run stops as on a hang-up.
    room.stdin(null);
    if (!done) Deno.kill(Deno.pid, "SIGHUP");
  })();
  let code: number;
  try {
    code = await runCli(request.argv);
  } catch (err) {
    console.error(`error: ${(err as Error).stack ?? err}`);
    code = 1;
  }
  done = true;
  room.send(FRAME.exit, String(code));
  await room.drained();
  conn.close();
  return code;
}

async function firstFrame(
  frames: AsyncGenerator<{ type: number; payload: Uint8Array }>,
): Promise<WarmRequest | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), REQUEST_TIMEOUT_MS);
  });
  try {
    const next = await Promise.race([frames.next(), late]);
    if (!next || next.done || next.value.type !== FRAME.request) return null;
    return JSON.parse(new TextDecoder().decode(next.value.payload)) as WarmRequest;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** The variables of `env` a process takes at start (startupVariable), as one comparable text. */
function startupEnv(env: Record<string, string>): string {
  return JSON.stringify(Object.entries(env).filter(([name]) => startupVariable(name)).sort());
}

/** Why this warm svc will not run `request`, or null. */
function refusal(request: WarmRequest, place: WarmPlace, startup: string): string | null {
  const strings = (value: unknown) =>
    typeof value === "object" && value !== null &&
    Object.values(value).every((v) => typeof v === "string");
  if (!strings(request.env) || typeof request.cwd !== "string") return "a malformed request";
  if (typeof request.terminal !== "object" || request.terminal === null) {
    return "a malformed request";
  }
  if (request.build !== BUILD_ID) return `build ${request.build}, this warm svc is ${BUILD_ID}`;
  if (request.umask !== place.umask) return "another umask";
  if (startupEnv(request.env) !== startup) {
    return "another time zone, locale, proxy or Deno setting";
  }
  if (!Array.isArray(request.argv) || !strings(request.argv) || request.argv[0] !== "run") {
    return "only svc run";
  }
  try {
    if (!Deno.statSync(request.cwd).isDirectory) return `${request.cwd} is not a folder`;
  } catch (err) {
    return `cannot use ${request.cwd}: ${(err as Error).message}`;
  }
  return null;
}
