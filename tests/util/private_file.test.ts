import assert from "node:assert/strict";
import { checkPrivate, currentUid, UnsafeFileError } from "../../src/util/private_file.ts";
import { SVC_PERMISSIONS } from "../../src/launch/svc_command.ts";

const ROOT = Deno.uid() === 0;
const NOBODY = 65534;
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

/** A temp HOME with `.config/svc` (0700) in it; HOME is set to it for the test's length. */
async function home(): Promise<AsyncDisposable & { home: string; dir: string }> {
  const home = await Deno.makeTempDir({ prefix: "svc-private-" });
  const dir = `${home}/.config/svc`;
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await Deno.chmod(`${home}/.config`, 0o700);
  const before = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  return {
    home,
    dir,
    async [Symbol.asyncDispose]() {
      if (before === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", before);
      await Deno.remove(home, { recursive: true });
    },
  };
}

function refused(path: string, pattern: RegExp): void {
  assert.throws(() => checkPrivate(path), (err: Error) => {
    assert.ok(err instanceof UnsafeFileError, String(err));
    assert.match(err.message, pattern);
    return true;
  });
}

Deno.test("checkPrivate passes svc's own 0700 folder, a 0600 or 0644 file and a missing one", async () => {
  await using h = await home();
  await Deno.writeTextFile(`${h.dir}/providers.json`, "{}", { mode: 0o600 });
  await Deno.writeTextFile(`${h.dir}/config.json`, "{}", { mode: 0o644 });
  await Deno.chmod(`${h.dir}/config.json`, 0o644);
  checkPrivate(`${h.dir}/providers.json`);
  checkPrivate(`${h.dir}/config.json`);
  checkPrivate(`${h.dir}/trusted.json`);
  checkPrivate(`${h.home}/.config/absent/config.json`);
});

Deno.test("checkPrivate refuses a config folder group or others can write, even with no file in it, and names chmod go-w", async () => {
  await using h = await home();
  await Deno.chmod(h.dir, 0o777);
  refused(`${h.dir}/config.json`, /\.config\/svc can be written by group and others \(mode 0777\)/);
  refused(`${h.dir}/config.json`, new RegExp(`run: chmod go-w ${h.dir}$`));
  await Deno.chmod(h.dir, 0o770);
  refused(`${h.dir}/providers.json`, /can be written by group \(mode 0770\)/);
  // Its parent (~/.config) too: whoever can write there can swap the whole folder.
  await Deno.chmod(h.dir, 0o700);
  await Deno.chmod(`${h.home}/.config`, 0o757);
  refused(`${h.dir}/trusted.json`, new RegExp(`${h.home}/.config can be written by others`));
  // A sticky folder others can write is refused when it is the user's own (only root's pass).
  await Deno.chmod(`${h.home}/.config`, 0o700);
  await Deno.chmod(h.dir, 0o1777);
  if (!ROOT) refused(`${h.dir}/config.json`, /mode 1777/);
});

Deno.test("checkPrivate refuses a file group or others can write", async () => {
  await using h = await home();
  await Deno.writeTextFile(`${h.dir}/config.json`, "{}");
  await Deno.chmod(`${h.dir}/config.json`, 0o666);
  refused(`${h.dir}/config.json`, /config\.json can be written by group and others \(mode 0666\)/);
  await Deno.chmod(`${h.dir}/config.json`, 0o602);
  refused(`${h.dir}/config.json`, /written by others \(mode 0602\).*chmod go-w/);
});

Deno.test({
  name:
    "checkPrivate refuses a file, a symbolic link or a folder another user owns, and names chown",
  ignore: !ROOT,
  async fn() {
    await using h = await home();
    const path = `${h.dir}/config.json`;
    await Deno.writeTextFile(path, "{}", { mode: 0o644 });
    await Deno.chown(path, NOBODY, NOBODY);
    refused(path, new RegExp(`${path} belongs to user id ${NOBODY}, not to you \\(0\\) or root`));
    refused(path, new RegExp(`run as root: chown 0 ${path}$`));
    // A link another user planted, to a file of the victim's (a cloned repository's config).
    await Deno.remove(path);
    await Deno.writeTextFile(`${h.home}/repo-config.json`, "{}");
    await Deno.symlink(`${h.home}/repo-config.json`, path);
    await new Deno.Command("chown", { args: ["-h", String(NOBODY), path] }).output();
    refused(path, /belongs to user id 65534.*chown -h 0/);
    await Deno.remove(path);
    await Deno.chown(h.dir, NOBODY, NOBODY);
    refused(path, new RegExp(`${h.dir} belongs to user id ${NOBODY}`));
  },
});

/** A Kubernetes secret volume: a root-owned sticky tmpfs mount, files as links into `..data`. */
async function secretMount(at: string, files: Record<string, string>): Promise<void> {
  const stamp = `${at}/..2026_11_26_13_00_00.000000001`;
  await Deno.mkdir(stamp, { recursive: true });
  await Deno.chmod(at, 0o1777);
  await Deno.chmod(stamp, 0o755);
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${stamp}/${name}`, text);
    await Deno.chmod(`${stamp}/${name}`, 0o444);
    await Deno.symlink(`..data/${name}`, `${at}/${name}`);
  }
  await Deno.symlink(stamp.slice(at.length + 1), `${at}/..data`);
}

Deno.test({
  name: "as another user: a root-owned read-only secret mount (Kubernetes layout) passes; the " +
    "user's own 0777 folder and root's group-writable file do not; the user id is learnt " +
    "without the sys permission",
  ignore: !ROOT || !SETPRIV,
  async fn() {
    const home = await Deno.makeTempDir({ prefix: "svc-private-nobody-" });
    try {
      await Deno.chmod(home, 0o755);
      const config = `${home}/.config`;
      await Deno.mkdir(config);
      await Deno.chown(config, NOBODY, NOBODY);
      await Deno.chmod(config, 0o700);
      await secretMount(`${config}/svc`, { "config.json": "{}", "providers.json": "{}" });
      const own = `${home}/own`;
      await Deno.mkdir(own);
      await Deno.chown(own, NOBODY, NOBODY);
      await Deno.chmod(own, 0o777);
      const rootFile = `${home}/root-file.json`;
      await Deno.writeTextFile(rootFile, "{}");
      await Deno.chmod(rootFile, 0o664);
      const script = `${home}/probe.ts`;
      const module = new URL("../../src/util/private_file.ts", import.meta.url).href;
      await Deno.writeTextFile(
        script,
        `import { checkPrivate, currentUid } from "${module}";
const out = { uid: currentUid(), results: {} as Record<string, string> };
for (const path of Deno.args) {
  try { checkPrivate(path); out.results[path] = "ok"; }
  catch (err) { out.results[path] = (err as Error).message; }
}
console.log(JSON.stringify(out));`,
      );
      await Deno.chmod(script, 0o644);
      const targets = [
        `${config}/svc/config.json`,
        `${config}/svc/providers.json`,
        `${own}/config.json`,
        rootFile,
      ];
      const run = await new Deno.Command(SETPRIV!, {
        args: [
          "--reuid",
          String(NOBODY),
          "--regid",
          String(NOBODY),
          "--clear-groups",
          Deno.execPath(),
          "run",
          "--no-config",
          ...SVC_PERMISSIONS,
          script,
          ...targets,
        ],
        env: { HOME: home, DENO_DIR: `${home}/deno`, NO_COLOR: "1" },
        clearEnv: true,
      }).output();
      const stderr = new TextDecoder().decode(run.stderr);
      assert.equal(run.code, 0, stderr);
      const out = JSON.parse(new TextDecoder().decode(run.stdout));
      assert.equal(out.uid, NOBODY, "learnt from a temp file: svc runs without --allow-sys");
      assert.equal(out.results[targets[0]], "ok");
      assert.equal(out.results[targets[1]], "ok");
      assert.match(out.results[targets[2]], /can be written by group and others.*chmod go-w/);
      assert.match(out.results[targets[3]], /root-file\.json can be written by group/);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test("currentUid is this process's user id", () => {
  assert.equal(currentUid(), Deno.uid());
});
