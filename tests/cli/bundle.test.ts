import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { BUNDLED_PLUGINS } from "../../src/config/schema.ts";
import { SVC_PERMISSIONS } from "../../scripts/permissions.ts";

Deno.test("deno task bundle output runs from another folder with every bundled plugin, loading Node modules only on use", async () => {
  await using box = await sandbox({ "notes.txt": "The secret word is PAPAYA.\n" });
  const dist = await Deno.makeTempDir({ prefix: "svc-dist-" });
  const script = new URL("../../scripts/bundle.ts", import.meta.url).pathname;
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, dist],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(built.success, true, new TextDecoder().decode(built.stderr));
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "file_read", arguments: { path: "notes.txt" } }] },
    { text: "PAPAYA" },
  ]);
  const run = (args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", ...SVC_PERMISSIONS, `${dist}/main.js`, ...args],
      cwd: box.worktree,
      env: box.env,
      stdout: "piped",
      stderr: "piped",
    }).output();
  const listed = await run(["plugins", "list", "--json"]);
  const loaded = JSON.parse(new TextDecoder().decode(listed.stdout))
    .filter((p: { status: string }) => p.status === "loaded").length;
  assert.equal(loaded, BUNDLED_PLUGINS.length);
  // svc-core-eval's generated fixtures survive bundling.
  const fixtures = await run(["eval", "list", "--output", "json"]);
  assert.deepEqual(
    JSON.parse(new TextDecoder().decode(fixtures.stdout)).map((f: { id: string }) => f.id),
    ["find-then-read", "grep-symbol", "list-directory", "page-large-file", "read-file-lines"],
  );
  const out = await run([
    "run",
    "--base-url",
    fake.url,
    "--model",
    "m",
    "-p",
    "x",
    "--output",
    "json",
  ]);
  await fake.close();
  // Start-up chunks import none of the Node modules Deno compiles on first use (about 50 ms);
  // commander still reaches them when it prints help or a usage error.
  const slow = /from "node:(fs|module|process|child_process|util)"/;
  const startup = ["main.js", "chunk-*", "program-*", "run_action-*"].map((glob) =>
    new RegExp(`^${glob.replace("*", ".*")}\\.js$`)
  );
  const eager = [...Deno.readDirSync(dist)]
    .filter((e) => e.isFile && startup.some((r) => r.test(e.name)))
    .filter((e) => slow.test(Deno.readTextFileSync(`${dist}/${e.name}`)))
    .map((e) => e.name);
  assert.deepEqual(eager, []);
  const usage = await run(["run", "--bogus"]);
  assert.deepEqual([usage.code, new TextDecoder().decode(usage.stderr)], [
    2,
    "error: unknown option '--bogus'\n(run \"svc run --help\" for usage)\n",
  ]);
  const help = new TextDecoder().decode((await run(["--help"])).stdout);
  assert.match(help, /^Usage: svc \[options\] \[command\]\n/);
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual([result.status, result.content, result.tool_calls[0].ok], [
    "ok",
    "PAPAYA",
    true,
  ]);
  await Deno.remove(dist, { recursive: true });
});
