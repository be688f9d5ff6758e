/** `deno task bench`: runs every benchmark script in turn and prints its figures. */
const here = new URL(".", import.meta.url).pathname;
const only = Deno.args;
const scripts = [...Deno.readDirSync(here)]
  .map((e) => e.name)
  .filter((n) => n.endsWith(".ts") && !n.startsWith("_") && n !== "mod.ts")
  .filter((n) => only.length === 0 || only.some((o) => n.includes(o)))
  .sort();
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
