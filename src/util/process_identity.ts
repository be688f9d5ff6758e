/**
 * Which process a pid names now: its start time, read by a spawned program because Deno lets a
 * process read /proc only with every permission (svc runs with a narrower set). A pid and its
 * start time together name one process: a pid reused by a later process has another start time.
 * Linux: field 22 of `/proc/<pid>/stat` (clock ticks since boot) through `cat`; elsewhere `ps -o
 * lstart=` (whole seconds).
 */

/** The start times of those of `pids` that name a live process (zombies count as gone). */
export async function startTimes(pids: readonly number[]): Promise<Map<number, string>> {
  const wanted = [...new Set(pids.filter((pid) => Number.isSafeInteger(pid) && pid > 0))];
  const found = new Map<number, string>();
  if (wanted.length === 0) return found;
  if (Deno.build.os === "linux") {
    const text = await output("cat", wanted.map((pid) => `/proc/${pid}/stat`));
    for (const line of text.split("\n")) {
      const parsed = parseStat(line);
      if (parsed && wanted.includes(parsed.pid) && parsed.state !== "Z") {
        found.set(parsed.pid, parsed.start);
      }
    }
    return found;
  }
  const text = await output("ps", ["-o", "pid=,stat=,lstart=", "-p", wanted.join(",")]);
  for (const line of text.split("\n")) {
    const match = /^\s*(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
    if (match && !match[2].startsWith("Z")) found.set(Number(match[1]), match[3]);
  }
  return found;
}

/** The start time of `pid`, or undefined when no live process has that pid. */
export async function startTime(pid: number): Promise<string | undefined> {
  return (await startTimes([pid])).get(pid);
}

/** Whether `pid` still names the process that had `start` as its start time. */
export async function isSameProcess(pid: number, start: string): Promise<boolean> {
  return (await startTime(pid)) === start;
}

/** One line of /proc/<pid>/stat: pid, state and start time (the name may hold spaces and ")"). */
export function parseStat(
  line: string,
): { pid: number; state: string; start: string } | undefined {
  const close = line.lastIndexOf(")");
  const pid = Number(line.slice(0, line.indexOf(" ")));
  if (close < 0 || !Number.isSafeInteger(pid)) return undefined;
  // After the name: field 3 (state) onwards; the start time is field 22.
  const fields = line.slice(close + 2).split(" ");
  const start = fields[22 - 3];
  if (!fields[0] || !start || !/^\d+$/.test(start)) return undefined;
  return { pid, state: fields[0], start };
}

async function output(command: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  // cat and ps exit non-zero when one of the pids is gone; what they printed still counts.
  return new TextDecoder().decode(out.stdout);
}
