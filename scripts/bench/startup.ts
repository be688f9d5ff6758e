/**
 * Startup: `svc --version` and `svc run --help` as whole processes, for the `svc` command that
 * `deno task install` installs and from the source tree (`deno task svc`). Samples of the four
 * commands alternate, so the VM's changing speed hits all alike (issue 17's target: the installed
 * `--version` no slower than the source tree's).
 */
import { installTemporarySvc, MAIN, report, timeProcess } from "./_util.ts";

const cwd = await Deno.makeTempDir();
const deno = Deno.execPath();
const installed = await installTemporarySvc();

// Calibration: this VM's speed varies over time, so print the floor beside svc's own figures.
await Deno.writeTextFile(`${cwd}/empty.ts`, "");
const floor: number[] = [];
for (let i = 0; i < 15; i++) {
  floor.push((await timeProcess([deno, "run", "--quiet", `${cwd}/empty.ts`], { cwd })).wall);
}
report("calibration: deno run of an empty script", floor);
const commands = [
  ["svc --version (cold process)", [installed.bin, "--version"], "< 80 ms"],
  ["svc run --help", [installed.bin, "run", "--help"], undefined],
  ["from source: svc --version", [deno, "run", "-A", "--quiet", MAIN, "--version"], undefined],
  ["from source: svc run --help", [deno, "run", "-A", "--quiet", MAIN, "run", "--help"], undefined],
] as const;
for (const [, args] of commands) await timeProcess([...args], { cwd });
const walls = commands.map(() => [] as number[]);
for (let i = 0; i < 15; i++) {
  for (const [k, [, args]] of commands.entries()) {
    walls[k].push((await timeProcess([...args], { cwd })).wall);
  }
}
for (const [k, [name, , target]] of commands.entries()) report(name, walls[k], "ms", target);
await Deno.remove(cwd, { recursive: true });
await installed.remove();
