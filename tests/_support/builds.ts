/**
 * The two svc builds a user can run: the source tree (`deno run main.ts`) and the command
 * `deno task install` makes (the bundle in `<root>/lib/svc` behind the launcher in `<root>/bin`).
 * Tests that must hold for both run the same commands through `runBuild` / `spawnBuild`.
 */
import { SVC_PERMISSIONS } from "../../scripts/permissions.ts";
import { networkEnv } from "../../src/tool/network_env.ts";

/** What a finished svc process left: its exit code and both streams as text. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const CHECKOUT = new URL("../../", import.meta.url).pathname;

/** A way to start svc: a program and the arguments that come before svc's own. */
export interface SvcBuild {
  name: "source" | "bundle" | "installed";
  command: string;
  prefix: string[];
  /** The folder holding its main module and bundled `plugins/`, with a trailing slash. */
  folder: string;
}

/** svc from this checkout's main.ts, with the permissions of svc's entry points. */
export const SOURCE_BUILD: SvcBuild = {
  name: "source",
  command: Deno.execPath(),
  prefix: ["run", ...SVC_PERMISSIONS, "--quiet", `${CHECKOUT}main.ts`],
  folder: CHECKOUT,
};

/**
 * The svc the end-to-end tests spawn (`svc` and `spawnSvc` of cli.ts): the bundle users install,
 * which `deno task test` builds once from this checkout and names in SVC_TEST_BUNDLE (its
 * `main.js`), run with svc's permissions as `deno task bundle` documents; without that variable
 * (a test file run alone with `deno test`), the source tree. From the bundle a spawned svc costs
 * about half the CPU of the source tree's (a few chunks instead of hundreds of modules, and
 * commander's Node modules stay unloaded), and the tests prove what users run.
 */
export const TEST_BUILD: SvcBuild = testBundle() ?? SOURCE_BUILD;

/** The main module of `TEST_BUILD`, for tests that start it with other flags (`-A`, a pty). */
export const TEST_MAIN: string = TEST_BUILD.prefix.at(-1)!;

function testBundle(): SvcBuild | null {
  const main = Deno.env.get("SVC_TEST_BUNDLE");
  if (!main) return null;
  return {
    name: "bundle",
    command: Deno.execPath(),
    prefix: ["run", ...SVC_PERMISSIONS, "--quiet", main],
    folder: main.slice(0, main.lastIndexOf("/") + 1),
  };
}

/** The caller's Deno cache, so an install under a temp HOME downloads only what it lacks. */
export const CALLER_DENO_DIR = Deno.env.get("DENO_DIR") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;

/**
 * Runs `deno task install` from this checkout into a new temp root (its bundle built in that root,
 * not in the checkout's dist/) and returns the installed command; disposing removes the root.
 * Only PATH, DENO_DIR and the network and certificate settings of this process reach the install.
 */
export async function installBuild(): Promise<SvcBuild & AsyncDisposable & { root: string }> {
  const root = await Deno.makeTempDir({ prefix: "svc-installed-" });
  const env = {
    HOME: root,
    DENO_DIR: CALLER_DENO_DIR,
    PATH: Deno.env.get("PATH") ?? "",
    ...networkEnv(),
  };
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${CHECKOUT}scripts/install.ts`,
      `--dist=${root}/dist`,
      "--root",
      `${root}/inst`,
    ],
    cwd: root,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    await Deno.remove(root, { recursive: true });
    throw new Error(`deno task install failed:\n${new TextDecoder().decode(out.stderr)}`);
  }
  return {
    name: "installed",
    command: `${root}/inst/bin/svc`,
    prefix: [],
    folder: `${root}/inst/lib/svc/`,
    root,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** Runs `svc <args>` of `build` to completion; `stdin` is written to it when given. */
export async function runBuild(
  build: SvcBuild,
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
): Promise<CliResult> {
  const child = new Deno.Command(build.command, {
    args: [...build.prefix, ...args],
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Spawns `svc <args>` of `build` with piped output (for servers and signals). */
export function spawnBuild(
  build: SvcBuild,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Deno.ChildProcess {
  return new Deno.Command(build.command, {
    args: [...build.prefix, ...args],
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
