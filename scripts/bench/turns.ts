/**
 * Whole `svc run` processes beside a floor: a bare `deno run` client (`_floor_client.ts`) making
 * the same single streamed request and printing the answer. Scenarios: a one-word answer, a 200 KB
 * answer in 4,000 chunks, and a 2 MB answer (RSS must not grow with the answer). Samples of the
 * floor, the installed svc and the source tree alternate so the VM's changing speed hits all alike.
 * "installed on a terminal" runs the text renderer on a pseudo-terminal (issue 17: within 20% of
 * `--output json` CPU).
 */
import {
  installTemporarySvc,
  MAIN,
  median,
  report,
  startProviderProcess,
  timeProcess,
} from "./_util.ts";

const here = new URL(".", import.meta.url).pathname;
const home = await Deno.makeTempDir();
const cwd = await Deno.makeTempDir();
const installed = await installTemporarySvc();
const deno = Deno.execPath();
const only = Deno.args;
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
  { name: "one-word answer", size: 4, chunk: 1000, runs: 15 },
  { name: "200 KB answer, 4,000 chunks", size: 200_000, chunk: 50, runs: 9 },
  { name: "2 MB answer, 40,000 chunks", size: 2_000_000, chunk: 50, runs: 5 },
].filter((s) => only.length === 0 || only.some((o) => s.name.includes(o)));
const env = { HOME: home, PATH: Deno.env.get("PATH") ?? "", NO_COLOR: "1" };
for (const s of scenarios) {
  const p = await provider(s.size, s.chunk);
  const runArgs = ["run", "--base-url", p.url, "--model", "m", "--prompt", "hi"];
  const variants = {
    floor: [deno, "run", "--allow-net", "--quiet", `${here}_floor_client.ts`, p.url, "m"],
    installed: [installed.bin, ...runArgs],
    "installed --output json": [installed.bin, ...runArgs, "--output", "json"],
    source: [deno, "run", "-A", "--quiet", MAIN, ...runArgs],
    // The text renderer on a terminal (util-linux `script` gives it one); CPU includes script's.
    ...(hasScript
      ? {
        "installed on a terminal": [
          "script",
          "-qec",
          [installed.bin, ...runArgs].map((a) => `'${a}'`).join(" "),
          "/dev/null",
        ],
      }
      : {}),
  };
  const samples = Object.fromEntries(
    Object.keys(variants).map((k) => [k, [] as Awaited<ReturnType<typeof timeProcess>>[]]),
  );
  for (const cmd of Object.values(variants)) await timeProcess(cmd, { cwd, env });
  for (let i = 0; i < s.runs; i++) {
    for (const [k, cmd] of Object.entries(variants)) {
      samples[k].push(await timeProcess(cmd, { cwd, env }));
    }
  }
  const floor = median(samples.floor.map((x) => x.wall));
  for (const [k, list] of Object.entries(samples)) {
    const wall = list.map((x) => x.wall);
    report(
      `${s.name}: ${k} wall`,
      wall,
      "ms",
      k === "floor" ? undefined : `ratio ${(median(wall) / floor).toFixed(2)} (< 1.3)`,
    );
    report(`${s.name}: ${k} CPU`, list.map((x) => x.user + x.sys), "ms");
    report(`${s.name}: ${k} peak RSS`, list.map((x) => x.rssKb / 1024), "MiB");
  }
  await p.stop();
}
await installed.remove();
await Deno.remove(home, { recursive: true });
await Deno.remove(cwd, { recursive: true });
