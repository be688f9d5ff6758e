/**
 * Child processes for tools with the `run` permission: each child leads its own process group
 * (session), its output is read with a byte cap, and the whole group is killed on timeout, on
 * abort and once the child exits, so background grandchildren never outlive the call.
 */
import { concatBytes } from "../util/byte_list.ts";

/** How a child process ended, with its capped output. */
export interface ProcessResult {
  /** Exit code; 128 + signal number when killed by a signal; -1 when it could not start. */
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
}

/** Options of `runProcess`. */
export interface SpawnOptions {
  cwd: string;
  /** The complete environment of the child (nothing else is inherited). */
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes kept from the start and from the end of each stream. */
  keepBytes?: number;
  /** Written to the child's stdin, which is then closed; default stdin is /dev/null. */
  input?: string;
  /** Sees the output of both streams as it is read (before capping). */
  onOutput?: (chunk: Uint8Array) => void;
}

const KEEP_BYTES = 20 * 1024;
const DRAIN_MS = 500;

/** Runs `cmd args` with stdin from /dev/null (or `input`); never throws for a child that fails to start. */
export async function runProcess(
  cmd: string,
  args: string[],
  options: SpawnOptions,
): Promise<ProcessResult> {
  const keep = options.keepBytes ?? KEEP_BYTES;
  if (options.signal?.aborted) return notStarted("cancelled before start", true);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(cmd, {
      args,
      cwd: options.cwd,
      env: options.env,
      clearEnv: true,
      stdin: options.input === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true, // setsid: the child leads a new process group
    }).spawn();
  } catch (err) {
    return notStarted(`could not start ${cmd}: ${(err as Error).message}`, false);
  }
  let timedOut = false, cancelled = false;
  const killGroup = () => {
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, options.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    killGroup();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const out = capture(child.stdout, keep, options.onOutput);
  const err = capture(child.stderr, keep, options.onOutput);
  if (options.input !== undefined) feed(child.stdin, options.input);
  try {
    const status = await child.status;
    clearTimeout(timer);
    killGroup();
    const [stdout, stderr] = await Promise.all([out.finish(), err.finish()]);
    return { code: status.code, stdout, stderr, timedOut, cancelled };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** Writes `text` to a child's stdin and closes it; a child that does not read it is fine. */
function feed(stdin: WritableStream<Uint8Array>, text: string): void {
  const writer = stdin.getWriter();
  writer.write(new TextEncoder().encode(text)).then(() => writer.close()).catch(() => {});
}

function notStarted(message: string, cancelled: boolean): ProcessResult {
  return { code: -1, stdout: "", stderr: message, timedOut: false, cancelled };
}

/** Reads a stream keeping the first and last `keep` bytes; `finish` waits briefly for EOF. */
function capture(
  stream: ReadableStream<Uint8Array>,
  keep: number,
  onOutput?: (chunk: Uint8Array) => void,
) {
  const reader = stream.getReader();
  const head: Uint8Array[] = [];
  const tail: Uint8Array[] = [];
  let headLen = 0, tailLen = 0, total = 0;
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        onOutput?.(value);
        total += value.length;
        const take = Math.min(keep - headLen, value.length);
        if (take > 0) {
          head.push(value.subarray(0, take));
          headLen += take;
        }
        if (take >= value.length) continue;
        tail.push(value.subarray(take));
        tailLen += value.length - take;
        while (tail.length > 1 && tailLen - tail[0].length >= keep) tailLen -= tail.shift()!.length;
      }
    } catch {
      // cancelled or broken pipe: keep what was read
    }
  })();
  return {
    async finish(): Promise<string> {
      // A process that escaped the group may hold the pipe open: stop waiting after a grace.
      const grace = setTimeout(() => reader.cancel().catch(() => {}), DRAIN_MS);
      await pump;
      clearTimeout(grace);
      const tailBytes = concatBytes(tail).slice(-keep);
      const omitted = total - headLen - tailBytes.length;
      const decoder = new TextDecoder();
      if (omitted <= 0) return decoder.decode(concatBytes([...head, tailBytes]));
      return `${decoder.decode(concatBytes(head))}\n[... ${omitted} bytes omitted ...]\n${
        decoder.decode(tailBytes)
      }`;
    },
  };
}
