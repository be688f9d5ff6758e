/**
 * `deno task test`: every test of tests/ and plugins/, as fast as two cores allow and as safely
 * as one file at a time. Files that change process-wide state (scripts/test_files.ts) run one
 * after another in one `deno test` process; every other file runs in a second process at the
 * same time, `--parallel`. The first process's output is printed as it comes, the second's
 * after it; the last line sums both in deno's own format (`ok | N passed | N failed | ...`), and
 * the exit code is non-zero when either failed. The type check of every test file runs beside
 * them in a third process (`deno check`) instead of before each: its seconds overlap the tests
 * rather than delay them, and a type error still fails the run (counted as one failure). The
 * known slow files start first (test_files.ts), so the last minute does not wait on one of them.
 * The svc the end-to-end tests spawn is the bundle users install, built here once
 * (`buildTestBundle`, tests/_support/builds.ts). Arguments (files or folders) run as plain
 * `deno test -A --quiet <args>`, whose tests spawn the source tree.
 */
import { changesProcessState, findTestFiles, slowFirst } from "./test_files.ts";
import { scriptArgs } from "./script_args.ts";

const ROOT = new URL("../", import.meta.url).pathname;
/** The deno test processes under way: a runner stopped with SIGTERM or SIGHUP takes them along
 * (Ctrl-C reaches them already, as the terminal signals the whole group). */
const running = new Set<Deno.ChildProcess>();
/** The folder of the bundle the tests run (`buildTestBundle`), removed when the run ends. */
let bundleDir: string | undefined;
for (const signal of ["SIGTERM", "SIGHUP"] as const) {
  Deno.addSignalListener(signal, () => {
    for (const child of running) child.kill("SIGTERM");
    if (bundleDir) Deno.removeSync(bundleDir, { recursive: true });
    Deno.exit(143);
  });
}
const args = scriptArgs(
  "Usage: deno task test [files or folders]\n\nRuns every test of tests/ and plugins/ (files " +
    "that change process-wide state one at a time, the rest in parallel); given files or folders, " +
    "runs just those with deno test.",
  Deno.args,
);
if (args.length) {
  Deno.exit(await run(["test", "-A", "--quiet", ...args], "inherit").then((r) => r.code));
}

const files = findTestFiles(ROOT, ["tests", "plugins"]);
const read = (path: string) => {
  try {
    return Deno.readTextFileSync(`${ROOT}${path}`);
  } catch {
    return null;
  }
};
const serial = files.filter((file) => changesProcessState(file, read));
const parallel = slowFirst(files.filter((file) => !serial.includes(file)));
const started = performance.now();
const test = ["test", "-A", "--quiet", "--no-check"];
const checked = run(["check", "--quiet", ...files], "piped");
const bundle = await buildTestBundle();
const [shared, alone, types] = await Promise.all([
  run([...test, "--parallel", ...parallel], "inherit", bundle),
  run([...test, ...serial], "piped", bundle),
  checked,
]);
await Deno.remove(bundleDir!, { recursive: true });
await Deno.stdout.write(alone.output);
if (types.code !== 0) {
  await Deno.stdout.write(types.output);
  console.log("\nFAILED: the type check of the test files (deno check) found errors, above");
}
const total = (key: "passed" | "failed" | "ignored") =>
  [shared.text, new TextDecoder().decode(alone.output)]
    .map((text) => Number(new RegExp(`\\| (\\d+) ${key}`).exec(lastSummary(text))?.[1] ?? 0))
    .reduce((a, b) => a + b, 0) + (key === "failed" && types.code !== 0 ? 1 : 0);
const failed = shared.code !== 0 || alone.code !== 0 || types.code !== 0;
const seconds = Math.round((performance.now() - started) / 1000);
console.log(
  `\n${failed ? "FAILED" : "ok"} | ${total("passed")} passed | ${total("failed")} failed | ` +
    `${total("ignored")} ignored (${Math.floor(seconds / 60)}m${seconds % 60}s, ` +
    `${parallel.length} files in parallel, ${serial.length} alone)`,
);
Deno.exit(failed ? 1 : 0);

/**
 * Workers of the parallel run: DENO_JOBS when set, else twice the cores. Many files spend their
 * time waiting on the processes and sockets they test (an svc they spawn, a timeout they prove),
 * so one worker per core left cores idle: on two cores four workers ran the suite in 2m42s
 * against 3m09s with two.
 */
function jobs(): string {
  return Deno.env.get("DENO_JOBS") || String(2 * (navigator.hardwareConcurrency || 1));
}

/**
 * Builds the bundle users install (scripts/bundle.ts) into a temp folder and returns its main.js:
 * the svc the end-to-end tests spawn (SVC_TEST_BUNDLE, tests/_support/builds.ts). A failed build
 * ends the run with the bundler's output.
 */
async function buildTestBundle(): Promise<string> {
  const dir = bundleDir = await Deno.makeTempDir({ prefix: "svc-test-bundle-" });
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}scripts/bundle.ts`, dir],
    cwd: ROOT,
    env: { DENO_DIR: denoDir() },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!built.success) {
    await Deno.stderr.write(built.stderr);
    console.log("\nFAILED: building the bundle the tests run (scripts/bundle.ts), above");
    await Deno.remove(dir, { recursive: true });
    Deno.exit(1);
  }
  return `${dir}/main.js`;
}

/**
 * The Deno cache the test processes and every svc they spawn share: DENO_DIR when set, else
 * Deno's default for this user. The tests give svc a temporary HOME, under which a Deno without
 * DENO_DIR starts from an empty cache and transpiles every module of the source tree again: the
 * suite took 3m36s that way against 2m55s with the cache shared (CI always sets DENO_DIR).
 */
function denoDir(): string {
  return Deno.env.get("DENO_DIR") ||
    `${Deno.env.get("XDG_CACHE_HOME") || `${Deno.env.get("HOME")}/.cache`}/deno`;
}

/** deno's closing line in `text` (`ok | ...` or `FAILED | ...`), or "". */
function lastSummary(text: string): string {
  // deno-lint-ignore no-control-regex -- deno's colour codes around the closing line
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "");
  return plain.split("\n").filter((line) => /^(ok|FAILED) \| /.test(line)).at(-1) ?? "";
}

/** `deno <args>` (a test or check run); "inherit" prints as it runs, "piped" keeps the output. */
async function run(
  denoArgs: string[],
  output: "inherit" | "piped",
  bundle?: string,
): Promise<{ code: number; text: string; output: Uint8Array }> {
  if (!denoArgs.slice(1).some((a) => !a.startsWith("-"))) {
    return { code: 0, text: "", output: new Uint8Array() };
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: denoArgs,
    cwd: ROOT,
    env: {
      DENO_JOBS: jobs(),
      DENO_DIR: denoDir(),
      ...(bundle ? { SVC_TEST_BUNDLE: bundle } : {}),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  running.add(child);
  const chunks: Uint8Array[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>, sink: typeof Deno.stdout) => {
    for await (const chunk of stream) {
      chunks.push(chunk);
      if (output === "inherit") await sink.write(chunk);
    }
  };
  await Promise.all([pump(child.stdout, Deno.stdout), pump(child.stderr, Deno.stderr)]);
  const { code } = await child.status;
  running.delete(child);
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return { code, text: new TextDecoder().decode(all), output: all };
}
