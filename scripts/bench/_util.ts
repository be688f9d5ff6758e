/** Shared helpers of the benchmark scripts: timing whole processes and summarizing samples. */
export const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/**
 * Runs `deno task install` into a temporary root (its dist/ there too); returns the installed
 * command and a cleanup.
 */
export async function installTemporarySvc(): Promise<{ bin: string; remove(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "svc-bench-install-" });
  const script = new URL("../install.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, `--dist=${dir}/dist`, "--root", dir],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno task install failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return { bin: `${dir}/bin/svc`, remove: () => Deno.remove(dir, { recursive: true }) };
}

export interface ProcessSample {
  wall: number;
  user: number;
  sys: number;
  rssKb: number;
}

/** Runs a command under GNU time and returns wall, CPU and peak RSS. */
export async function timeProcess(
  cmd: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<ProcessSample> {
  const hasTime = await Deno.stat("/usr/bin/time").then(() => true, () => false);
  const start = performance.now();
  const out = await new Deno.Command(hasTime ? "/usr/bin/time" : cmd[0], {
    args: hasTime ? ["-f", "%U %S %M", ...cmd] : cmd.slice(1),
    cwd: options.cwd,
    env: options.env,
    stdout: "null",
    stderr: "piped",
  }).output();
  const wall = performance.now() - start;
  if (!out.success) {
    throw new Error(`${cmd.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  const last = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
  const [user, sys, rss] = hasTime ? last.split(" ").map(Number) : [NaN, NaN, NaN];
  return { wall, user: user * 1000, sys: sys * 1000, rssKb: rss };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Prints one figure line: name, median and the range. */
export function report(name: string, values: number[], unit = "ms", target?: string): void {
  const fmt = (v: number) => (unit === "ms" ? v.toFixed(1) : v.toFixed(0));
  console.log(
    `${name.padEnd(44)} median ${fmt(median(values))} ${unit}  (min ${
      fmt(Math.min(...values))
    }, max ${fmt(Math.max(...values))}, n=${values.length})${target ? `  target ${target}` : ""}`,
  );
}

/** Reads `svc serve`'s stderr until it prints the address it listens on. */
export async function listeningUrl(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    const match = /listening on (http:\/\/\S+)/.exec(text);
    if (match) {
      reader.releaseLock();
      stream.pipeTo(new WritableStream()).catch(() => {});
      return match[1];
    }
  }
  throw new Error(`svc serve did not start: ${text}`);
}

/**
 * Calibration of the in-process benches: the provider's own round trip (one bare streamed
 * request drained through `client`), after a warm-up; prints the line and returns the samples.
 */
export async function calibrateRoundTrip(
  client: { chat(request: never, signal: AbortSignal): AsyncIterable<unknown> },
  signal: AbortSignal,
): Promise<number[]> {
  const roundTrip = async () => {
    const start = performance.now();
    const request = { model: "m", messages: [{ role: "user", content: "hi" }] } as never;
    for await (const _ of client.chat(request, signal)) {
      // drain
    }
    return performance.now() - start;
  };
  for (let i = 0; i < 20; i++) await roundTrip();
  const trips: number[] = [];
  for (let i = 0; i < 50; i++) trips.push(await roundTrip());
  report("calibration: one bare provider round trip", trips);
  return trips;
}

/** A scripted provider in its own process (one of this folder's `_*_provider.ts`). */
export interface ProviderProcess {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `scripts/bench/<script>` with `args` in a process of its own (so its work is not counted
 * in the measured process) and returns the URL it prints on its first line.
 */
export async function startProviderProcess(
  script: string,
  args: string[] = [],
): Promise<ProviderProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", new URL(script, import.meta.url).pathname, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const url = (await reader.read()).value?.trim() ?? "";
  reader.releaseLock();
  return {
    url,
    async stop() {
      child.kill();
      await child.status;
    },
  };
}
