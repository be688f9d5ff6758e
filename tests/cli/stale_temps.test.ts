import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { TEMP_FILE_NAME } from "../../src/util/atomic.ts";

Deno.test("svc removes the key-holding temp files a killed save left in ~/.config/svc at its next start", async () => {
  await using box = await sandbox();
  const dir = `${box.home}/.config/svc`;
  await Deno.mkdir(dir, { recursive: true });
  const keys = JSON.stringify({ openai: { api_key: "sk-left-behind-0123456789" } });
  const write = async (name: string, ageSeconds: number) => {
    await Deno.writeTextFile(`${dir}/${name}`, keys, { mode: 0o600 });
    const at = new Date(Date.now() - ageSeconds * 1000);
    await Deno.utime(`${dir}/${name}`, at, at);
  };
  await write(".0c4f9a1e.tmp", 3600); // left by a save killed an hour ago
  await write(".7d2b6e30.tmp", 0); // a save in progress in another process
  await write("notes.tmp", 3600); // not svc's name pattern
  await write(".backup.tmp", 3600);
  const result = await svc(["config", "path"], { cwd: box.worktree, env: box.env });
  assert.equal(result.code, 0, result.stderr);
  const left = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
  assert.deepEqual(left, [".7d2b6e30.tmp", ".backup.tmp", "notes.tmp"]);
});

Deno.test("svc removes the warm-run folder an svc 0.27.0 left in ~/.config/svc, so its idle warm svc exits", async () => {
  await using box = await sandbox();
  const warm = `${box.home}/.config/svc/warm`;
  await Deno.mkdir(warm, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(`${warm}/0123abcd.sock`, "");
  const result = await svc(["config", "path"], { cwd: box.worktree, env: box.env });
  assert.equal(result.code, 0, result.stderr);
  const left = [...Deno.readDirSync(`${box.home}/.config/svc`)].map((e) => e.name);
  assert.deepEqual(left, []);
});

Deno.test("svc connect's key writes killed at random moments (SIGKILL, 20 times) never leave a temp file group or others can read, and the next start removes the old ones", async () => {
  await using box = await sandbox();
  const dir = `${box.home}/.config/svc`;
  const registry = new URL("../../src/provider/registry_file.ts", import.meta.url).href;
  // What `svc connect` does to save a key, in a loop of ~1 MiB files so a kill lands mid-write.
  const child = `import { setEntry } from "${registry}";
const filler = "k".repeat(200_000);
console.log("ready");
for (let i = 0; ; i++) await setEntry("p" + (i % 5), { api_key: "sk-" + i + "-" + filler }, { dir: ${
    JSON.stringify(dir)
  } });`;
  const seen = new Map<string, number>();
  let watching = true;
  const watch = (async () => {
    // Every temp file seen while the writes run, with its mode at that moment.
    while (watching) {
      try {
        for (const entry of Deno.readDirSync(dir)) {
          if (!TEMP_FILE_NAME.test(entry.name)) continue;
          const mode = Deno.lstatSync(`${dir}/${entry.name}`).mode! & 0o777;
          seen.set(entry.name, Math.max(seen.get(entry.name) ?? 0, mode));
        }
      } catch {
        // The folder is not made yet, or a temp file was renamed between listing and stat.
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
  for (let kill = 0; kill < 20; kill++) {
    const process = new Deno.Command(Deno.execPath(), {
      args: ["eval", child],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const reader = process.stdout.getReader();
    await reader.read(); // "ready"
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 60));
    process.kill("SIGKILL");
    await process.status;
    reader.releaseLock();
    await process.stdout.cancel();
    for (const entry of Deno.readDirSync(dir)) {
      if (!TEMP_FILE_NAME.test(entry.name)) continue;
      const mode = Deno.statSync(`${dir}/${entry.name}`).mode! & 0o777;
      assert.equal(mode & 0o077, 0, `${entry.name} left with mode ${mode.toString(8)}`);
    }
  }
  watching = false;
  await watch;
  const left = [...Deno.readDirSync(dir)].filter((e) => TEMP_FILE_NAME.test(e.name)).length;
  // Most kills land mid-write (a write takes ~20 ms): the test saw what it is about.
  assert.ok(left > 0, "no kill left a temp file behind");
  for (const [name, mode] of seen) assert.equal(mode & 0o077, 0, `${name} had ${mode.toString(8)}`);
  assert.equal(Deno.statSync(`${dir}/providers.json`).mode! & 0o777, 0o600);
  // A minute later the next start removes what the kills left.
  const old = new Date(Date.now() - 60_000);
  for (const entry of Deno.readDirSync(dir)) {
    if (TEMP_FILE_NAME.test(entry.name)) Deno.utimeSync(`${dir}/${entry.name}`, old, old);
  }
  const result = await svc(["config", "path"], { cwd: box.worktree, env: box.env });
  assert.equal(result.code, 0, result.stderr);
  const temps = [...Deno.readDirSync(dir)].filter((e) => TEMP_FILE_NAME.test(e.name));
  assert.deepEqual(temps, [], `${left} temp files were left by the kills`);
});
