import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { BUNDLED_PLUGINS } from "../../src/config/schema.ts";
import { SVC_PERMISSIONS } from "../../scripts/permissions.ts";
import { LAZY_BUILTIN_HELPER } from "../../scripts/bundle_commander.ts";
import { readThroughFirstLine } from "../_support/read_line.ts";

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
  // Start-up chunks and the bundled plugins' modules import none of the Node modules Deno
  // compiles on first use (about 50 ms; node:buffer alone about 5); commander still reaches them
  // when it prints help or a usage error.
  const slow = /from "node:(fs|module|process|child_process|util|buffer)"/;
  const startup = ["main.js", "chunk-*", "program-*", "run_action-*"].map((glob) =>
    new RegExp(`^${glob.replace("*", ".*")}\\.js$`)
  );
  const eager = [...Deno.readDirSync(dist)]
    .filter((e) => e.isFile && startup.some((r) => r.test(e.name)))
    .map((e) => e.name)
    .concat(BUNDLED_PLUGINS.map((name) => `plugins/${name}/mod.js`))
    .filter((name) => slow.test(Deno.readTextFileSync(`${dist}/${name}`)));
  assert.deepEqual(eager, []);
  const usage = await run(["run", "--bogus"]);
  assert.deepEqual([usage.code, new TextDecoder().decode(usage.stderr)], [
    2,
    "error: unknown option '--bogus'\n(run \"svc run --help\" for usage)\n",
  ]);
  const help = new TextDecoder().decode((await run(["--help"])).stdout);
  assert.match(help, /^Usage: svc \[options\] \[command\]\n/);
  const runHelp = new TextDecoder().decode((await run(["run", "--help"])).stdout);
  assert.match(runHelp, /^Usage: svc run \[options\] \[prompt\.\.\.\]\n[\s\S]*--model/);
  await loadsNoNodeModuleForCommander(dist, run);
  // htmlparser2, web_fetch's and web_search's HTML reader, loads on the first fetch or search.
  const files = [...Deno.readDirSync(dist)].filter((e) => e.isFile && e.name.endsWith(".js"))
    .map((e) => e.name);
  const parser = files.filter((name) =>
    Deno.readTextFileSync(`${dist}/${name}`).includes("node_modules/.deno/htmlparser2@")
  );
  assert.equal(parser.length, 1);
  const startRoots = files.filter((name) => /^(main|program-.*|run_action-.*)\.js$/.test(name))
    .concat([...Deno.readDirSync(`${dist}/plugins`)].map((e) => `plugins/${e.name}/mod.js`));
  assert.equal(staticImports(dist, startRoots).has(parser[0]), false);
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual([result.status, result.content, result.tool_calls[0].ok], [
    "ok",
    "PAPAYA",
    true,
  ]);
  await startsWithoutZod(dist, run, box.env.HOME);
  await turnsWithoutNodeTimers(dist, box);
  await answersAcpInitialize(dist, box);
  await Deno.remove(dist, { recursive: true });
});

/**
 * A one-word turn (plugins loaded, the session written, the answer streamed and printed) never
 * reads the global `setTimeout` or `setInterval`, whose first read loads Deno's Node timers (about
 * 8 ms; src/util/timer.ts). A module run before svc reports any read.
 */
async function turnsWithoutNodeTimers(
  dist: string,
  box: { worktree: string; env: Record<string, string> },
): Promise<void> {
  const probe = await Deno.makeTempFile({ suffix: ".js" });
  await Deno.writeTextFile(
    probe,
    `for (const name of ["setTimeout", "setInterval"]) {
  const real = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, {
    configurable: true,
    get() {
      Deno.stderr.writeSync(new TextEncoder().encode(name + " read\\n"));
      return real.get.call(this);
    },
  });
}\n`,
  );
  const fake = await startFakeProvider(() => ({ text: "Done" }));
  try {
    const turn = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...SVC_PERMISSIONS,
        "--preload",
        probe,
        `${dist}/main.js`,
        ...["run", "--base-url", fake.url, "--model", "m", "-p", "hi"],
      ],
      cwd: box.worktree,
      env: box.env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.deepEqual(
      [turn.code, new TextDecoder().decode(turn.stdout), new TextDecoder().decode(turn.stderr)],
      [0, "Done\n", ""],
    );
  } finally {
    await fake.close();
    await Deno.remove(probe);
  }
}

/** `svc acp` from the bundle answers `initialize`: the ACP SDK is in the build. */
async function answersAcpInitialize(
  dist: string,
  box: { worktree: string; env: Record<string, string> },
): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...SVC_PERMISSIONS, `${dist}/main.js`, "acp"],
    cwd: box.worktree,
    env: box.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const request = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } };
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(`${JSON.stringify(request)}\n`));
  // The answer is read before stdin closes: the agent stops at the end of its input.
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const text = await readThroughFirstLine(lines);
  await writer.close();
  await lines.cancel();
  assert.equal((await child.status).code, 0);
  const answer = JSON.parse(text.split("\n")[0]);
  assert.deepEqual([answer.id, answer.result.agentInfo.name], [1, "svc"]);
}

/**
 * The rewrite of commander's chunk (scripts/bundle_commander.ts) holds at run time: with its lazy
 * modules made to report their loads, commands commander parses without printing (a config read,
 * a one-word turn) load none, and `run --help` still prints, loading them.
 */
async function loadsNoNodeModuleForCommander(
  dist: string,
  run: (args: string[]) => Promise<Deno.CommandOutput>,
): Promise<void> {
  const chunks = [...Deno.readDirSync(dist)].filter((e) => e.isFile && e.name.endsWith(".js"))
    .map((e) => `${dist}/${e.name}`)
    .filter((path) => Deno.readTextFileSync(path).includes(LAZY_BUILTIN_HELPER));
  assert.equal(chunks.length, 1);
  const original = Deno.readTextFileSync(chunks[0]);
  const load = "const load = () => (real ??= ";
  assert.equal(original.split(load).length, 2);
  Deno.writeTextFileSync(
    chunks[0],
    original.replace(
      load,
      "const load = () => (globalThis.Deno.stderr.writeSync(new TextEncoder()" +
        ".encode(`lazy module loaded: ${id}\\n`)), real ??= ",
    ),
  );
  const fake = await startFakeProvider(() => ({ text: "Done" }));
  try {
    const config = await run(["config", "get", "model"]);
    assert.deepEqual([config.code, new TextDecoder().decode(config.stderr)], [0, ""]);
    const turn = await run(["run", "--base-url", fake.url, "--model", "m", "-p", "hi"]);
    assert.deepEqual(
      [turn.code, new TextDecoder().decode(turn.stdout), new TextDecoder().decode(turn.stderr)],
      [0, "Done\n", ""],
    );
    // Help does reach them (node:process for the terminal's width): the reports work.
    const help = await run(["run", "--help"]);
    assert.match(new TextDecoder().decode(help.stdout), /^Usage: svc run /);
    assert.match(new TextDecoder().decode(help.stderr), /^lazy module loaded: node:/m);
  } finally {
    Deno.writeTextFileSync(chunks[0], original);
    await fake.close();
  }
}

/**
 * The build carries its id; the start path (main, the program, `svc run`, the runtime, `svc
 * serve`'s jobs, the bundled plugins) never imports zod statically; of zod's locales only English
 * is in the build; after one run has remembered the config, the manifests and the tool schemas, a
 * one-word turn with the same flags runs with zod's chunk gone; and a config that changes is
 * checked again, so a bad value still fails with zod's own message.
 */
async function startsWithoutZod(
  dist: string,
  run: (args: string[]) => Promise<Deno.CommandOutput>,
  home: string,
): Promise<void> {
  const chunks = [...Deno.readDirSync(dist)].filter((e) => e.isFile && e.name.endsWith(".js"))
    .map((e) => e.name);
  const text = (name: string) => Deno.readTextFileSync(`${dist}/${name}`);
  const ids = chunks.flatMap((name) =>
    [...text(name).matchAll(/var BUILD_ID = "([0-9a-f]{24})";/g)].map((m) => m[1])
  );
  assert.equal(ids.length, 1);
  const zod = chunks.filter((name) => text(name).includes("zod/v4/core/schemas.js"));
  assert.equal(zod.length, 1);
  // Of zod's locales only English is in the build: a zod namespace passed as a value would keep
  // all 60-odd, and every process that validates would load them (src/tool/zod_api.ts).
  const locales = chunks.flatMap((name) =>
    [...text(name).matchAll(/zod\/v4\/locales\/([\w-]+)\.js/g)].map((m) => m[1])
  );
  assert.deepEqual([...new Set(locales)], ["en"]);
  // svc serve's own chunks too: an idle server or fleet agent holds no zod (its jobs load on use).
  const roots = chunks
    .filter((name) => /^(main|program-.*|run_action-.*|runtime-.*|serve_jobs-.*)\.js$/.test(name))
    .concat([...Deno.readDirSync(`${dist}/plugins`)].map((e) => `plugins/${e.name}/mod.js`));
  assert.equal(staticImports(dist, roots).has(zod[0]), false);
  const remembered = JSON.parse(
    await Deno.readTextFile(`${home}/.config/svc/start_cache/${ids[0]}.json`),
  );
  assert.deepEqual(Object.keys(remembered.kinds).sort(), [
    "config",
    "config_file",
    "manifest",
    "tool_parameters",
  ]);
  const fake = await startFakeProvider(() => ({ text: "Done" }));
  const oneWord = () => run(["run", "--base-url", fake.url, "--model", "m", "-p", "hi"]);
  // This provider's address is a new config (the flags are its top layer): remembered here.
  assert.equal((await oneWord()).code, 0);
  await Deno.rename(`${dist}/${zod[0]}`, `${dist}/${zod[0]}.away`);
  const withoutZod = await oneWord();
  await Deno.rename(`${dist}/${zod[0]}.away`, `${dist}/${zod[0]}`);
  assert.deepEqual(
    [
      withoutZod.code,
      new TextDecoder().decode(withoutZod.stdout),
      new TextDecoder().decode(withoutZod.stderr),
    ],
    [0, "Done\n", ""],
  );
  await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(`${home}/.config/svc/config.json`, `{"max_tokens": -1}`);
  const bad = await oneWord();
  await Deno.remove(`${home}/.config/svc/config.json`);
  await fake.close();
  assert.deepEqual([bad.code, new TextDecoder().decode(bad.stderr)], [
    1,
    `svc run: Invalid config in ${home}/.config/svc/config.json: "max_tokens": Too small: ` +
    "expected number to be >=0\n",
  ]);
}

/** Every chunk `roots` import statically, transitively, by path under `dist`. */
function staticImports(dist: string, roots: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = Deno.readTextFileSync(`${dist}/${file}`);
    for (const m of source.matchAll(/^(?:import|export)\b[^;]*?["'](\.{1,2}\/[^"']+)["']/gms)) {
      visit(new URL(m[1], `file:///${file}`).pathname.slice(1));
    }
  };
  roots.forEach(visit);
  return seen;
}
