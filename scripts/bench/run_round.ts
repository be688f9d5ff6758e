/** One whole `svc run` with one tool round against an instant local provider. */
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";
import { MAIN, median, report, timeProcess } from "./_util.ts";

const home = await Deno.makeTempDir();
const cwd = await Deno.makeTempDir();
await Deno.writeTextFile(`${cwd}/notes.txt`, "The secret word is PAPAYA.\n");
const fake = await startFakeProvider((_body, i) =>
  i % 2 === 0
    ? { tool_calls: [{ name: "file_read", arguments: { path: "notes.txt" } }], chunkSize: 1000 }
    : { text: "The secret word is PAPAYA.", chunkSize: 1000 }
);
const args = [
  Deno.execPath(),
  "run",
  "-A",
  "--quiet",
  MAIN,
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
const env = { HOME: home, PATH: Deno.env.get("PATH") ?? "" };
// Calibration: this VM's speed varies over time, so print the floor beside svc's own figures.
await Deno.writeTextFile(`${home}/empty.ts`, "");
const floor = [];
for (let i = 0; i < 10; i++) {
  floor.push(
    (await timeProcess([Deno.execPath(), "run", "--quiet", `${home}/empty.ts`], { cwd })).wall,
  );
}
report("calibration: deno run of an empty script", floor);
await timeProcess(args, { cwd, env });
const samples = [];
for (let i = 0; i < 15; i++) samples.push(await timeProcess(args, { cwd, env }));
report("svc run, one tool round: wall", samples.map((s) => s.wall), "ms", "< 200 ms");
report("svc run, one tool round: CPU (user+sys)", samples.map((s) => s.user + s.sys), "ms");
report(
  "svc run, one tool round: peak RSS",
  samples.map((s) => s.rssKb / 1024),
  "MiB",
  "< 90 MiB",
);
console.log(
  `  (${fake.requests.length} provider requests; median wall ${
    median(samples.map((s) => s.wall)).toFixed(1)
  } ms)`,
);
await fake.close();
await Deno.remove(home, { recursive: true });
await Deno.remove(cwd, { recursive: true });
