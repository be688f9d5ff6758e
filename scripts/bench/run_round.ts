/**
 * One whole `svc run` with one tool round against an instant local provider: as the `svc` command
 * that `deno task install` installs (the dist/ build with this checkout's deno.json), and from the
 * source tree (`deno task svc`). Samples of the two alternate so the VM's changing speed hits
 * both alike.
 */
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";
import { installTemporarySvc, MAIN, median, report, timeProcess } from "./_util.ts";

const home = await Deno.makeTempDir();
const cwd = await Deno.makeTempDir();
await Deno.writeTextFile(`${cwd}/notes.txt`, "The secret word is PAPAYA.\n");
const installed = await installTemporarySvc();
const fake = await startFakeProvider((_body, i) =>
  i % 2 === 0
    ? { tool_calls: [{ name: "file_read", arguments: { path: "notes.txt" } }], chunkSize: 1000 }
    : { text: "The secret word is PAPAYA.", chunkSize: 1000 }
);
const svcArgs = (...command: string[]) => [
  ...command,
  "run",
  "--base-url",
  fake.url,
  "--model",
  "m",
  "--prompt",
  "Read notes.txt and tell me the secret word",
  "--output",
  "json",
];
// Calibration: this VM's speed varies over time, so print the floor beside svc's own figures.
await Deno.writeTextFile(`${home}/empty.ts`, "");
const floor = [];
for (let i = 0; i < 10; i++) {
  floor.push(
    (await timeProcess([Deno.execPath(), "run", "--quiet", `${home}/empty.ts`], { cwd })).wall,
  );
}
report("calibration: deno run of an empty script", floor);
const source = svcArgs(Deno.execPath(), "run", "-A", "--quiet", MAIN);
const installedSvc = svcArgs(installed.bin);
const env = { HOME: home, PATH: Deno.env.get("PATH") ?? "" };
await timeProcess(source, { cwd, env });
await timeProcess(installedSvc, { cwd, env });
const sourceRuns = [];
const installedRuns = [];
for (let i = 0; i < 15; i++) {
  installedRuns.push(await timeProcess(installedSvc, { cwd, env }));
  sourceRuns.push(await timeProcess(source, { cwd, env }));
}
report("svc run, one tool round: wall", installedRuns.map((s) => s.wall), "ms", "< 200 ms");
report("svc run, one tool round: CPU (user+sys)", installedRuns.map((s) => s.user + s.sys), "ms");
report(
  "svc run, one tool round: peak RSS",
  installedRuns.map((s) => s.rssKb / 1024),
  "MiB",
  "< 90 MiB",
);
report("the same from source (deno task svc): wall", sourceRuns.map((s) => s.wall), "ms");
report("the same from source: peak RSS", sourceRuns.map((s) => s.rssKb / 1024), "MiB");
console.log(
  `  (${fake.requests.length} provider requests; median wall ${
    median(installedRuns.map((s) => s.wall)).toFixed(1)
  } ms installed, ${median(sourceRuns.map((s) => s.wall)).toFixed(1)} ms from source)`,
);
await fake.close();
for (const dir of [home, cwd]) await Deno.remove(dir, { recursive: true });
await installed.remove();
