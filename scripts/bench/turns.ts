/**
 * Whole `svc run` processes beside a floor: a bare `deno run` client (`_floor_client.ts`) making
 * the same single streamed request and printing the answer. Scenarios: a one-word answer, a 200 KB
 * answer in 4,000 chunks, and a 2 MB answer (RSS must not grow with the answer). Samples of the
 * floor, the installed svc and the source tree alternate so the VM's changing speed hits all alike.
 * "installed on a terminal" runs the text renderer on a pseudo-terminal; "svc alone on a terminal"
 * is svc's own CPU there, measured by GNU time inside the pty, against `--output json` (issue 17:
 * within 20%).
 */
import {
  installTemporarySvc,
  listeningUrl,
  MAIN,
  median,
  report,
  startProviderProcess,
  timeProcess,
} from "./_util.ts";
import { SVC_PERMISSIONS } from "../permissions.ts";
import { SVC_V8_FLAGS } from "../v8_flags.ts";

const here = new URL(".", import.meta.url).pathname;
const home = await Deno.makeTempDir();
const cwd = await Deno.makeTempDir();
const installed = await installTemporarySvc();
const deno = Deno.execPath();
const only = Deno.args;
const hasTime = await Deno.stat("/usr/bin/time").then(() => true, () => false);
const alone = `${home}/svc_alone.time`;
const hasScript = await new Deno.Command("script", { args: ["--version"], stdout: "null" }).output()
  .then((o) => o.success, () => false);

function provider(size: number, chunk: number) {
  return startProviderProcess("./_answer_provider.ts", [String(size), String(chunk)]);
}

await Deno.writeTextFile(`${home}/empty.ts`, "");
const calibration = [];
for (let i = 0; i < 10; i++) {
  calibration.push((await timeProcess([deno, "run", "--quiet", `${home}/empty.ts`], { cwd })).wall);
}
report("calibration: deno run of an empty script", calibration);

const scenarios = [
  // Targets of issue 33: the wall ratio to the floor.
  { name: "one-word answer", size: 4, chunk: 1000, runs: 15, target: 1.6 },
  { name: "200 KB answer, 4,000 chunks", size: 200_000, chunk: 50, runs: 9, target: 1.15 },
  { name: "2 MB answer, 40,000 chunks", size: 2_000_000, chunk: 50, runs: 5, target: 1.3 },
].filter((s) => only.length === 0 || only.some((o) => s.name.includes(o)));
const env = { HOME: home, PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1" };
for (const s of scenarios) {
  const p = await provider(s.size, s.chunk);
  const runArgs = ["run", "--base-url", p.url, "--model", "m", "--prompt", "hi"];
  const variants = {
    floor: [deno, "run", "--allow-net", "--quiet", `${here}_floor_client.ts`, p.url, "m"],
    installed: [installed.bin, ...runArgs],
    "installed --output json": [installed.bin, ...runArgs, "--output", "json"],
    // As `deno task svc` runs it.
    source: [deno, "run", ...SVC_PERMISSIONS, ...SVC_V8_FLAGS, "--quiet", MAIN, ...runArgs],
    // The text renderer on a terminal (util-linux `script` gives it one). The whole command's CPU
    // includes script relaying the answer; GNU time inside the pty measures svc alone.
    ...(hasScript
      ? {
        "installed on a terminal": [
          "script",
          "-qec",
          [...(hasTime ? ["/usr/bin/time", "-o", alone, "-f", "%U %S %M"] : []), installed.bin]
            .concat(runArgs).map((a) => `'${a}'`).join(" "),
          "/dev/null",
        ],
      }
      : {}),
  };
  const samples = Object.fromEntries(
    Object.keys(variants).map((k) => [k, [] as Awaited<ReturnType<typeof timeProcess>>[]]),
  );
  for (const cmd of Object.values(variants)) await timeProcess(cmd, { cwd, env });
  const svcAlone: Awaited<ReturnType<typeof timeProcess>>[] = [];
  for (let i = 0; i < s.runs; i++) {
    for (const [k, cmd] of Object.entries(variants)) {
      samples[k].push(await timeProcess(cmd, { cwd, env }));
      if (k !== "installed on a terminal" || !hasTime) continue;
      const [user, sys, rss] = (await Deno.readTextFile(alone)).trim().split(" ").map(Number);
      svcAlone.push({ wall: NaN, user: user * 1000, sys: sys * 1000, rssKb: rss });
    }
  }
  const floor = median(samples.floor.map((x) => x.wall));
  for (const [k, list] of Object.entries(samples)) {
    const wall = list.map((x) => x.wall);
    report(
      `${s.name}: ${k} wall`,
      wall,
      "ms",
      k === "floor" ? undefined : `ratio ${(median(wall) / floor).toFixed(2)} (< ${s.target})`,
    );
    report(`${s.name}: ${k} CPU`, cpuOf(list), "ms");
    report(`${s.name}: ${k} peak RSS`, list.map((x) => x.rssKb / 1024), "MiB");
  }
  if (svcAlone.length) {
    const cpu = (list: typeof svcAlone) => median(list.map((x) => x.user + x.sys));
    const over = cpu(svcAlone) / cpu(samples["installed --output json"]) - 1;
    report(
      `${s.name}: svc alone on a terminal CPU`,
      svcAlone.map((x) => x.user + x.sys),
      "ms",
      `${over >= 0 ? "+" : ""}${(over * 100).toFixed(0)}% against --output json (< +20%)`,
    );
  }
  if (s.name.startsWith("200 KB")) {
    await chatCpu(p.url, median(cpuOf(samples["installed --output json"])));
  }
  await p.stop();
}
await installed.remove();
await Deno.remove(home, { recursive: true });
await Deno.remove(cwd, { recursive: true });

function cpuOf(list: Awaited<ReturnType<typeof timeProcess>>[]): number[] {
  return list.map((x) => x.user + x.sys);
}

/**
 * The same answer through `POST /chat` of the installed `svc serve`: the server's CPU per request
 * (its /proc accounting across 9 requests), against `svc run --output json`'s whole process.
 */
async function chatCpu(providerUrl: string, jsonCpu: number): Promise<void> {
  const serveHome = await Deno.makeTempDir();
  await Deno.mkdir(`${serveHome}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(
    `${serveHome}/.config/svc/config.json`,
    JSON.stringify({ base_url: providerUrl, model: "m" }),
  );
  const child = new Deno.Command(installed.bin, {
    args: ["serve", "--port", "0"],
    cwd,
    env: { ...env, HOME: serveHome },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const url = await listeningUrl(child.stderr);
    const token = (await Deno.readTextFile(`${serveHome}/.config/svc/serve_token`)).trim();
    const chat = async () => {
      const response = await fetch(`${url}/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "hi" }),
      });
      const result = await response.json();
      if (response.status !== 200 || result.content.length < 100_000) {
        throw new Error(`POST /chat answered ${response.status}: ${JSON.stringify(result)}`);
      }
    };
    const ticks = async () => {
      const stat = await Deno.readTextFile(`/proc/${child.pid}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, 100 Hz ticks
    };
    for (let i = 0; i < 3; i++) await chat(); // warm-up
    const per: number[] = [];
    for (let round = 0; round < 3; round++) {
      const before = await ticks();
      for (let i = 0; i < 9; i++) await chat();
      per.push((await ticks() - before) / 9);
    }
    const over = median(per) / jsonCpu - 1;
    report(
      "200 KB answer through POST /chat: the server's CPU per request",
      per,
      "ms",
      `${over >= 0 ? "+" : ""}${(over * 100).toFixed(0)}% against svc run --output json (< +20%)`,
    );
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(serveHome, { recursive: true });
  }
}
