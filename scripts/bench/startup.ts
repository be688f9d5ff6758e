/** Startup: `svc --version` and `svc run --help` as whole processes. */
import { MAIN, report, timeProcess } from "./_util.ts";

const cwd = await Deno.makeTempDir();
const deno = Deno.execPath();

// Calibration: this VM's speed varies over time, so print the floor beside svc's own figures.
await Deno.writeTextFile(`${cwd}/empty.ts`, "");
const floor: number[] = [];
for (let i = 0; i < 15; i++) {
  floor.push((await timeProcess([deno, "run", "--quiet", `${cwd}/empty.ts`], { cwd })).wall);
}
report("calibration: deno run of an empty script", floor);
for (
  const [name, args, target] of [
    ["svc --version (cold process)", ["--version"], "< 80 ms"],
    ["svc run --help", ["run", "--help"], undefined],
  ] as const
) {
  await timeProcess([deno, "run", "-A", "--quiet", MAIN, ...args], { cwd });
  const walls: number[] = [];
  for (let i = 0; i < 15; i++) {
    walls.push((await timeProcess([deno, "run", "-A", "--quiet", MAIN, ...args], { cwd })).wall);
  }
  report(name, walls, "ms", target);
}
await Deno.remove(cwd, { recursive: true });
