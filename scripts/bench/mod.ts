/**
 * `deno task bench [name...]`: runs every benchmark script (or those whose file name contains one
 * of the names) in turn and prints its figures.
 */
import { scriptArgs } from "../script_args.ts";

const here = new URL(".", import.meta.url).pathname;
const all = [...Deno.readDirSync(here)]
  .map((e) => e.name)
  .filter((n) => n.endsWith(".ts") && !n.startsWith("_") && n !== "mod.ts")
  .sort();
const only = scriptArgs(
  "Usage: deno task bench [name...]\n\nRuns the benchmarks whose file name contains a name " +
    `(all when none is given): ${all.map((n) => n.slice(0, -3)).join(", ")}.`,
  Deno.args,
);
const unmatched = only.filter((o) => !all.some((n) => n.includes(o)));
if (unmatched.length) {
  console.error(`no benchmark matches ${unmatched.join(", ")}; run deno task bench --help`);
  Deno.exit(2);
}
const scripts = all.filter((n) => only.length === 0 || only.some((o) => n.includes(o)));
let failed = 0;
for (const name of scripts) {
  console.log(`\n## ${name}`);
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${here}${name}`],
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  if (!status.success) failed++;
}
Deno.exit(failed ? 1 : 0);
