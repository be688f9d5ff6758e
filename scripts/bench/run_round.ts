/**
 * One whole `svc run` with one tool round against an instant local provider, from the source
 * tree (`deno task svc`, the installed `svc`) and from the `deno task bundle` build. Samples of
 * the two alternate so the VM's changing speed hits both alike.
 */
import { join } from "node:path";
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";
import { MAIN, median, report, timeProcess } from "./_util.ts";

const home = await Deno.makeTempDir();
const cwd = await Deno.makeTempDir();
const dist = await Deno.makeTempDir({ prefix: "svc-bench-dist-" });
await Deno.writeTextFile(`${cwd}/notes.txt`, "The secret word is PAPAYA.\n");
const built = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", new URL("../bundle.ts", import.meta.url).pathname, dist],
  stderr: "null",
}).output();
if (!built.success) throw new Error("deno task bundle failed");
const fake = await startFakeProvider((_body, i) =>
  i % 2 === 0
    ? { tool_calls: [{ name: "file_read", arguments: { path: "notes.txt" } }], chunkSize: 1000 }
    : { text: "The secret word is PAPAYA.", chunkSize: 1000 }
);
const svcArgs = (entry: string) => [
  Deno.execPath(),
  "run",
  "-A",
  "--quiet",
  entry,
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
const source = svcArgs(MAIN);
const bundle = svcArgs(join(dist, "main.js"));
await timeProcess(source, { cwd, env });
await timeProcess(bundle, { cwd, env });
const samples = [];
const bundled = [];
for (let i = 0; i < 15; i++) {
  samples.push(await timeProcess(source, { cwd, env }));
  bundled.push(await timeProcess(bundle, { cwd, env }));
}
report("svc run, one tool round: wall", samples.map((s) => s.wall), "ms", "< 200 ms");
report("svc run, one tool round: CPU (user+sys)", samples.map((s) => s.user + s.sys), "ms");
report(
  "svc run, one tool round: peak RSS",
  samples.map((s) => s.rssKb / 1024),
  "MiB",
  "< 90 MiB",
);
report("the same from the bundle (dist/main.js): wall", bundled.map((s) => s.wall), "ms");
report("the same from the bundle: peak RSS", bundled.map((s) => s.rssKb / 1024), "MiB");
console.log(
  `  (${fake.requests.length} provider requests; median wall ${
    median(samples.map((s) => s.wall)).toFixed(1)
  } ms from source, ${median(bundled.map((s) => s.wall)).toFixed(1)} ms from the bundle)`,
);
await fake.close();
for (const dir of [home, cwd, dist]) await Deno.remove(dir, { recursive: true });
