import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";

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
