/**
 * `deno task bundle`: for machines where `deno compile` cannot run. Writes `dist/svc.js` (svc
 * itself) and `dist/plugins/<name>/` (each bundled plugin as one `mod.js` plus its manifest), so
 * `deno run -A dist/svc.js` works from any folder without the source tree. An argument names
 * another output folder.
 */
import { join } from "node:path";

const root = new URL("../", import.meta.url).pathname;
const dist = Deno.args[0] ?? join(root, "dist");
await Deno.remove(dist, { recursive: true }).catch(() => {});

async function bundle(entry: string, out: string): Promise<void> {
  const { success, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "deno", "-o", out, entry],
    cwd: root,
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (!success) {
    console.error(new TextDecoder().decode(stderr));
    throw new Error(`deno bundle ${entry} failed`);
  }
}

await bundle("main.ts", join(dist, "svc.js"));
for (const entry of Deno.readDirSync(join(root, "plugins"))) {
  if (!entry.isDirectory) continue;
  const source = join(root, "plugins", entry.name);
  const manifest = JSON.parse(await Deno.readTextFile(join(source, "manifest.json")));
  const target = join(dist, "plugins", entry.name);
  await bundle(join(source, manifest.entry ?? "mod.ts"), join(target, "mod.js"));
  manifest.entry = "mod.js";
  await Deno.writeTextFile(join(target, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  console.error(`bundled ${entry.name}`);
}
console.error(`wrote ${dist}/svc.js and ${dist}/plugins/; run it with: deno run -A ${dist}/svc.js`);
