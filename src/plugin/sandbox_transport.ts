/**
 * How svc reaches a sandboxed plugin's Worker. Deno 2.9 cannot stop a Worker stuck in a loop
 * (`terminate()` leaves it running: denoland/deno#35657) nor cap its heap, so the Worker runs in a
 * small child process of its own (`sandbox_process.ts`) that svc can kill: messages are JSON lines
 * on its stdin and stdout, the process holds no permission beyond the plugin's grant, and its V8
 * heap is capped, so a plugin that runs out of memory ends only that process. A compiled svc
 * binary cannot start a `deno run` child; there the Worker runs in svc's process, without those
 * two guarantees. A plugin granted `run` has its process started inside svc's OS sandbox
 * (plugin_jail.ts), so the programs it starts are held too.
 */
import { basename } from "../util/posix_path.ts";
import { fileURLToPath } from "../util/file_url.ts";
import { denoFlags, type PluginGrant, workerPermissions } from "./grant.ts";
import { inProcessRefusal, type JailPlace, type JailPlan, jailPlugin } from "./plugin_jail.ts";
import { type HostMessage, MAX_LINE_CHARS, type WorkerMessage } from "./sandbox_protocol.ts";

/** The V8 heap of a plugin's process, in MiB: past it, that process alone dies. */
export const HEAP_LIMIT_MIB = 512;

/** What a transport reports: each message, and once, why it ended. */
export interface TransportEvents {
  message(message: WorkerMessage): void;
  ended(reason: string): void;
}

/** A live connection to one plugin's Worker. */
export interface Transport {
  send(message: HostMessage): void;
  /** Ends it for good; for a process, at once (SIGKILL). */
  kill(): void;
}

/**
 * Opens the connection of the plugin `name` with `grant`; a string says why it cannot. `place`
 * is the worktree (and its sandbox settings) a process granted `run` is sandboxed for.
 */
export async function openTransport(
  name: string,
  { grant, events, kind = canSpawnDeno() ? "process" : "worker", place }: {
    grant: PluginGrant;
    events: TransportEvents;
    kind?: "process" | "worker";
    place?: JailPlace;
  },
): Promise<Transport | string> {
  try {
    if (kind === "process") return await processTransport(name, { grant, events, place });
    const refused = place ? await inProcessRefusal(grant, place) : undefined;
    return refused ?? workerTransport(name, grant, events);
  } catch (err) {
    return `Cannot start its sandbox: ${(err as Error).message.split("\n")[0]}`;
  }
}

/** Whether this svc runs under the `deno` executable (not as a compiled binary). */
function canSpawnDeno(): boolean {
  return basename(Deno.execPath()).startsWith("deno");
}

async function processTransport(
  name: string,
  { grant, events, place }: { grant: PluginGrant; events: TransportEvents; place?: JailPlace },
): Promise<Transport | string> {
  const spawned = await spawnProcess(name, { grant, place });
  if (typeof spawned === "string") return spawned;
  const { child, jail } = spawned;
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let ended = false;
  let stderr = "";
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
    events.ended(reason);
  };
  readLines(child.stdout, MAX_LINE_CHARS, () => {
    end(`sent a message line longer than ${MAX_LINE_CHARS} characters`);
    kill();
  }, (line) => {
    let message: WorkerMessage;
    try {
      message = JSON.parse(line);
    } catch {
      end("sent a message svc cannot read");
      kill();
      return;
    }
    events.message(message);
  });
  readText(child.stderr, (text) => {
    stderr = (stderr + text).slice(-8192);
  });
  child.status.then(async (status) => {
    jail.done();
    await new Promise((done) => setTimeout(done, 0)); // the last stdout lines first
    if (/out of memory/i.test(stderr)) {
      end(`ran out of memory (its heap is limited to ${HEAP_LIMIT_MIB} MiB)`);
    } else {
      const last = stderr.trim().split("\n").at(-1)?.slice(0, 300);
      end(`its process ended (exit code ${status.code})${last ? `: ${last}` : ""}`);
    }
  });
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  return {
    send(message) {
      if (ended) return;
      writer.write(encoder.encode(`${JSON.stringify(message)}\n`)).catch(() => {});
    },
    kill() {
      end("killed");
      kill();
    },
  };
}

/**
 * Starts the process of plugin `name`: `deno run` of the relay with the grant's permissions,
 * inside svc's OS sandbox when the grant includes `run`; a string says why it may not start.
 */
async function spawnProcess(
  name: string,
  { grant, place }: { grant: PluginGrant; place?: JailPlace },
): Promise<{ child: Deno.ChildProcess; jail: Extract<JailPlan, { ok: true }> } | string> {
  const worker = moduleUrl("sandbox_worker");
  const relay = moduleUrl("sandbox_process");
  // The Worker's own modules load with the process's permissions: svc's code (src/, or the
  // bundle's folder) is readable by the process, never by the Worker.
  const code = new URL(worker.pathname.endsWith(".ts") ? "../" : "../../", worker);
  const readable = worker.protocol === "file:" ? [fileURLToPath(code)] : [];
  const line = {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--unstable-worker-options",
      `--v8-flags=--max-old-space-size=${HEAP_LIMIT_MIB}`,
      // The process gets the plugin's grant and svc's code; the Worker gets the grant.
      ...denoFlags({ ...grant, read: [...grant.read, ...readable] }),
      relay.href,
      worker.href,
      JSON.stringify(workerPermissions(grant)),
      name,
    ],
  };
  const jail = await jailPlugin(line, {
    grant,
    place: place ?? { worktree: Deno.cwd() },
    readable,
  });
  if (!jail.ok) return jail.error;
  try {
    const child = new Deno.Command(jail.line.command, {
      args: jail.line.args,
      env: jail.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return { child, jail };
  } catch (err) {
    jail.done();
    throw err;
  }
}

function workerTransport(name: string, grant: PluginGrant, events: TransportEvents): Transport {
  const worker = new Worker(moduleUrl("sandbox_worker"), {
    type: "module",
    name: `svc plugin ${name}`,
    deno: { permissions: workerPermissions(grant) },
  });
  let ended = false;
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
    worker.terminate();
    events.ended(reason);
  };
  worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
    if (!ended) events.message(event.data);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    end(`crashed: ${event.message}`);
  };
  worker.onmessageerror = () => end("sent a message svc cannot read");
  return {
    send(message) {
      if (!ended) worker.postMessage(message);
    },
    kill() {
      end("killed");
    },
  };
}

/**
 * Calls `line` for each line of a byte stream; a line longer than `max` characters is never
 * buffered whole: `tooLong` is called once and the rest of the stream is ignored.
 */
async function readLines(
  stream: ReadableStream<Uint8Array>,
  max: number,
  tooLong: () => void,
  line: (text: string) => void,
) {
  let parts: string[] = [];
  let length = 0;
  let over = false;
  await readText(stream, (text) => {
    let from = 0;
    let at: number;
    while (!over && (at = text.indexOf("\n", from)) >= 0) {
      if (length + at - from > max) break;
      const one = parts.join("") + text.slice(from, at);
      parts = [];
      length = 0;
      from = at + 1;
      if (one) line(one);
    }
    if (over) return;
    const rest = text.slice(from);
    parts.push(rest);
    length += rest.length;
    if (length > max) {
      over = true;
      parts = [];
      tooLong();
    }
  });
}

async function readText(stream: ReadableStream<Uint8Array>, text: (chunk: string) => void) {
  try {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) text(chunk);
  } catch {
    // the process was killed
  }
}

const urls = new Map<string, URL>();

/**
 * One of the sandbox's modules: beside this one in the source tree (and in a compiled binary),
 * at `src/plugin/<name>.js` beside the shared chunk in a `deno task bundle` build.
 */
function moduleUrl(name: string): URL {
  const known = urls.get(name);
  if (known) return known;
  for (const relative of [`./${name}.ts`, `./src/plugin/${name}.js`]) {
    const url = new URL(relative, import.meta.url);
    let found = url.protocol !== "file:";
    try {
      found ||= Deno.statSync(fileURLToPath(url)).isFile;
    } catch {
      // try the next layout
    }
    if (found) {
      urls.set(name, url);
      return url;
    }
  }
  throw new Error(`the plugin sandbox module ${name} is missing from this svc build`);
}
