/**
 * `deno task install`: builds `dist/` (see bundle.ts), copies it with a deno.json and deno.lock
 * into the install root's `lib/svc/` (default `~/.deno/lib/svc`, beside `~/.deno/bin/svc`) and
 * installs the `svc` command from that copy with `deno install -g`. The installed svc needs
 * nothing from this checkout: moving, rebuilding or deleting the checkout does not break it. The
 * copied deno.json carries the import map (third-party plugins import bare names like `zod`) and
 * the unstable flags. The command runs with svc's permission set (scripts/permissions.ts), not
 * `-A`, from a launcher script with a Deno cache folder of its own (scripts/launcher_script.ts)
 * that runs the Deno binary running this install (`Deno.execPath()`), by its absolute path.
 * Re-run this after updating the checkout to install the new version.
 * `--dist=<dir>` builds into another folder; other arguments go to `deno install` (for example
 * `--root <dir>`).
 */
import { cp, rename, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { SVC_PERMISSIONS } from "./permissions.ts";
import { SVC_V8_FLAGS } from "./v8_flags.ts";
import { launcherScript, notNativeDeno } from "./launcher_script.ts";
import { scriptArgs } from "./script_args.ts";

const root = new URL("../", import.meta.url).pathname;
// Other options go to `deno install` as they are, so only --help is taken here.
const args = scriptArgs(
  "Usage: deno task install [--dist=<folder>] [--root <dir>] [other deno install options]\n\n" +
    "Builds svc (into --dist, default dist/), copies it to <root>/lib/svc and installs the svc\n" +
    "command in <root>/bin (root: --root, else DENO_INSTALL_ROOT, else ~/.deno).",
  Deno.args,
  "pass",
);
const distArg = args.find((a) => a.startsWith("--dist="));
const dist = distArg ? resolve(distArg.slice("--dist=".length)) : join(root, "dist");
const installArgs = args.filter((a) => a !== distArg);
const prefix = installRoot(installArgs);
const lib = join(prefix, "lib", "svc");
const bin = join(prefix, "bin");
/**
 * The Deno the launcher runs: this one, the binary itself even when a wrapper on PATH (npm's
 * `bin.cjs`) started it. Checked first, before the build.
 */
const deno = Deno.execPath();
const notDeno = await notNativeDeno(deno);
if (notDeno) {
  console.error(
    `svc install: ${notDeno}. The installed svc runs the Deno binary that ran the install, so run ` +
      "the install with the real binary (see docs/install.md; with npm it is " +
      "$(npm root -g)/deno/deno)",
  );
  Deno.exit(1);
}

/** Where `deno install -g` puts `bin/`: `--root`, else DENO_INSTALL_ROOT, else ~/.deno. */
function installRoot(args: string[]): string {
  const at = args.indexOf("--root");
  const inline = args.find((a) => a.startsWith("--root="));
  const given = at >= 0 ? args[at + 1] : inline?.slice("--root=".length);
  if (given) return resolve(given);
  const env = Deno.env.get("DENO_INSTALL_ROOT");
  if (env) return resolve(env);
  const home = Deno.env.get("HOME");
  if (!home) throw new Error("HOME is not set; pass --root <dir> to say where to install svc");
  return join(home, ".deno");
}

async function run(args: string[], what: string): Promise<void> {
  const { success } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!success) {
    console.error(`svc install: ${what} failed`);
    Deno.exit(1);
  }
}

/**
 * The installed copy: dist/, a deno.json with only what the installed svc reads (import map,
 * unstable flags, node_modules mode) and the lock file, swapped in for the previous copy.
 */
async function placeCopy(): Promise<void> {
  const staging = `${lib}.new-${Deno.pid}`;
  const old = `${lib}.old-${Deno.pid}`;
  await rm(staging, { recursive: true, force: true });
  await cp(dist, staging, { recursive: true });
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  // No name: deno warns on every start about a named config without "exports".
  const { nodeModulesDir, unstable, imports } = config;
  const installed = { nodeModulesDir, unstable, imports };
  await Deno.writeTextFile(join(staging, "deno.json"), `${JSON.stringify(installed, null, 2)}\n`);
  await cp(join(root, "deno.lock"), join(staging, "deno.lock"));
  const hadOld = await rename(lib, old).then(() => true, (err) => {
    if (err.code === "ENOENT") return false;
    throw err;
  });
  await rename(staging, lib);
  if (hadOld) await rm(old, { recursive: true, force: true });
}

/**
 * Replaces the script `deno install` wrote with svc's launcher (scripts/launcher_script.ts), which
 * runs the same copy with the same config under svc's own Deno cache folder.
 */
async function writeLauncher(): Promise<void> {
  const launcher = join(bin, "svc");
  // deno install runs the command with its own copy of the config, kept beside the script.
  const copied = join(bin, ".svc", "deno.json");
  const config = await Deno.stat(copied).then(() => copied, () => join(lib, "deno.json"));
  const text = launcherScript({
    deno,
    launcher,
    cacheDir: join(lib, ".deno"),
    config,
    main: join(lib, "main.js"),
  });
  const staging = `${launcher}.new-${Deno.pid}`;
  await Deno.writeTextFile(staging, text);
  await Deno.chmod(staging, 0o755); // not the mode option: the umask would narrow it
  await rename(staging, launcher);
}

await run(["run", "-A", join(root, "scripts", "bundle.ts"), dist], "building dist/");
await Deno.mkdir(join(lib, ".."), { recursive: true });
await placeCopy();
await run([
  "install",
  "--global",
  ...SVC_PERMISSIONS,
  ...SVC_V8_FLAGS,
  "--force",
  "--name",
  "svc",
  "--config",
  join(lib, "deno.json"),
  ...installArgs,
  join(lib, "main.js"),
], "deno install");
await writeLauncher();
console.error(
  `installed svc from ${lib} (a copy: the checkout ${root} can move or change); ` +
    "run deno task install again after updating the checkout",
);
