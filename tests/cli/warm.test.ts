import assert from "node:assert/strict";
import { runProcess, sandbox } from "../_support/cli.ts";
import { FRAME, frame } from "../../src/cli/warm_frames.ts";
import { type FakeProvider, startFakeProvider } from "../_support/fake_provider.ts";

/**
 * Warm runs of the installed svc (src/cli/warm_client.ts, warm_server.ts): a run with no warm svc
 * runs itself and starts one; the next run hands its turn to it. Every test installs nothing of
 * its own: one install into a temp root serves the file.
 */

/** The caller's Deno cache, so installing under a temp root downloads nothing. */
const DENO_DIR = Deno.env.get("DENO_DIR") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;
const INSTALL = new URL("../../scripts/install.ts", import.meta.url).pathname;
const PATH = Deno.env.get("PATH") ?? "";
const hasSetsid = await new Deno.Command("setsid", { args: ["--version"], stdout: "null" })
  .output().then((o) => o.success, () => false);
const ignore = !hasSetsid || Deno.build.os !== "linux";

let installed: Promise<{ bin: string; root: string }> | undefined;
/** Installs svc once for this file (removed at unload). */
function install(): Promise<{ bin: string; root: string }> {
  return installed ??= (async () => {
    const root = await Deno.makeTempDir({ prefix: "svc-warm-install-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", INSTALL, `--dist=${root}/dist`, "--root", root],
      env: { HOME: root, DENO_DIR, PATH },
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(out.success, true, new TextDecoder().decode(out.stderr));
    return { bin: `${root}/bin/svc`, root };
  })();
}

interface Box {
  home: string;
  worktree: string;
  env: Record<string, string>;
}

/** Runs the installed svc; `stdin` is written to it when given; `umask` sets the process's. */
async function run(
  box: Box,
  args: string[],
  options: { env?: object; stdin?: string; umask?: string } = {},
) {
  const { bin } = await install();
  const shell = ["-c", `umask ${options.umask} && exec "$0" "$@"`, bin];
  return await runProcess(options.umask ? "sh" : bin, options.umask ? [...shell, ...args] : args, {
    cwd: box.worktree,
    env: { ...box.env, DENO_DIR, PATH, ...options.env },
    stdin: options.stdin,
  });
}

/**
 * The warm folder's socket, once one is there (within 20 s), with its identity (inode and time:
 * a new socket may reuse the inode of one removed before); `other` waits for another one.
 */
async function waitForSocket(home: string, other?: string): Promise<{ path: string; id: string }> {
  const dir = `${home}/.config/svc/warm`;
  for (let i = 0; i < 400; i++) {
    try {
      for (const entry of Deno.readDirSync(dir)) {
        if (!entry.name.endsWith(".sock")) continue;
        const path = `${dir}/${entry.name}`;
        const info = Deno.lstatSync(path);
        const id = `${info.ino}:${info.mtime?.getTime()}:${info.ctime?.getTime()}`;
        if (id !== other) return { path, id };
      }
    } catch {
      // not there yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no warm svc socket appeared in ${dir}`);
}

/** Pids of warm svc processes whose working folder is `cwd` (the one running a turn there). */
function warmPidsIn(cwd: string): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (cmdline.includes("__warm") && Deno.readLinkSync(`/proc/${entry.name}/cwd`) === cwd) {
        pids.push(Number(entry.name));
      }
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Warm svc processes started for `home` (their environment names it). */
function warmPidsOf(home: string): number[] {
  return warmPidsIn("/").filter((pid) => environOf(pid).includes(`HOME=${home}\0`));
}

/**
 * Stops the warm svcs of a test's HOME (SIGTERM; the last test shows that removing the socket is
 * enough, within seconds) and waits until they are gone: they write to the install's cache.
 */
async function stopWarm(home: string): Promise<void> {
  await Deno.remove(`${home}/.config/svc/warm`, { recursive: true }).catch(() => {});
  for (const pid of warmPidsOf(home)) {
    try {
      Deno.kill(pid, "SIGTERM");
    } catch {
      // gone meanwhile
    }
  }
  for (let i = 0; i < 300 && warmPidsOf(home).length; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.deepEqual(warmPidsOf(home), []);
}

/** `svc run` against the test's provider with model "m", then `rest`. */
function runArgs(provider: FakeProvider, ...rest: string[]): string[] {
  return ["run", "--base-url", provider.url, "--model", "m", ...rest];
}

/** What a tool call reports: its folder, a variable, and the command line of the svc running it. */
const PROBE = 'echo "cwd=$PWD probe=$WARM_PROBE by=$(tr "\\0" " " < /proc/$PPID/cmdline)"';

/** A provider asking for the PROBE command on every other request, answering "probed" between. */
const probeOrAnswer = (_body: unknown, index: number) =>
  index % 2 === 0
    ? { tool_calls: [{ name: "run_command", arguments: { command: PROBE } }] }
    : { text: "probed" };

/**
 * Runs `fn` with a temp HOME and worktree and a fake provider answering `script`; stops the
 * HOME's warm svcs and the provider after it.
 */
async function withWarm(
  script: Parameters<typeof startFakeProvider>[0],
  options: { trusted?: boolean },
  fn: (box: Box, provider: FakeProvider) => Promise<void>,
): Promise<void> {
  await using box = await sandbox({}, options);
  const provider = await startFakeProvider(script);
  try {
    await fn(box, provider);
  } finally {
    await stopWarm(box.home);
    await provider.close();
  }
}

Deno.test({
  name:
    "an installed svc run starts a warm svc, and the next run hands it the turn in the caller's folder and environment (needs setsid)",
  ignore,
  fn: () =>
    withWarm(
      probeOrAnswer,
      { trusted: true },
      async (box, provider) => {
        const args = runArgs(provider, "--yes", "-p", "probe");
        const cold = await run(box, args, { env: { WARM_PROBE: "one" } });
        assert.deepEqual([cold.code, cold.stdout], [0, "probed\n"]);
        const first = await waitForSocket(box.home);
        const warm = await run(box, args, { env: { WARM_PROBE: "two" } });
        assert.deepEqual(warm, cold);
        const seen = provider.requests.filter((_, i) => i % 2 === 1)
          .map((r) => r.body.messages.at(-1).content as string);
        assert.match(
          seen[0],
          new RegExp(`^cwd=${box.worktree} probe=one by=.*/main\\.js run --base-url `, "m"),
        );
        // The second turn ran in the warm svc, with the caller's folder and environment.
        assert.match(
          seen[1],
          new RegExp(`^cwd=${box.worktree} probe=two by=.*/main\\.js __warm $`, "m"),
        );
        // The warm svc that took the run started its successor.
        await waitForSocket(box.home, first.id);
        // Both turns are on disk as sessions of the worktree.
        const sessions = [...Deno.readDirSync(`${box.worktree}/.svc/sessions`)]
          .filter((e) => e.name.endsWith(".json"));
        assert.equal(sessions.length, 2);
      },
    ),
});

Deno.test({
  name:
    "a warm svc started under another time zone or umask leaves the run to the client, which starts one of its own (needs setsid)",
  ignore,
  fn: () =>
    withWarm(
      probeOrAnswer,
      { trusted: true },
      async (box, provider) => {
        const args = runArgs(provider, "--yes", "-p", "probe");
        const ranBy = () => {
          const content = provider.requests.at(-1)!.body.messages.at(-1).content as string;
          return content.includes("main.js __warm") ? "warm" : "cold";
        };
        const runs = [];
        for (
          const options of [{}, {}, { env: { TZ: "Asia/Tokyo" } }, { env: { TZ: "Asia/Tokyo" } }, {
            env: { TZ: "Asia/Tokyo" },
            umask: "077",
          }]
        ) {
          const out = await run(box, args, options);
          runs.push([out.code, out.stdout, ranBy()]);
          await waitForSocket(box.home);
        }
        assert.deepEqual(runs, [
          [0, "probed\n", "cold"],
          [0, "probed\n", "warm"],
          [0, "probed\n", "cold"], // the warm svc has another TZ: it refuses and exits
          [0, "probed\n", "warm"], // the one the refused run started
          [0, "probed\n", "cold"],
        ]);
      },
    ),
});

Deno.test({
  name:
    "a warm run gives the same output and exit codes as a cold one: --output json, a prompt on stdin, usage errors and --help (needs setsid)",
  ignore,
  fn: () =>
    withWarm(() => ({ text: "answer" }), {}, async (box, provider) => {
      const base = runArgs(provider);
      const cases = [
        { args: [...base, "-p", "hi", "--output", "json"] },
        { args: [...base, "-p", "-"], stdin: "from stdin" },
        { args: [...base, "-p", "hi", "--yes", "--no"] },
        { args: ["run", "--help"] },
        { args: ["run", "--bogus"] },
      ];
      const results = [];
      for (const mode of [{ SVC_WARM: "0" }, {}]) {
        if (!("SVC_WARM" in mode)) {
          await run(box, [...base, "-p", "start one"]);
          await waitForSocket(box.home);
        }
        for (const c of cases) {
          const out = await run(box, c.args, { env: mode, stdin: c.stdin });
          const json = c.args.includes("json");
          // The session's name carries the time: compare the JSON without it.
          results.push(json ? { ...out, stdout: JSON.parse(out.stdout).content } : out);
          if (!("SVC_WARM" in mode)) await waitForSocket(box.home);
        }
      }
      const [cold, warm] = [results.slice(0, cases.length), results.slice(cases.length)];
      assert.deepEqual(warm, cold);
      assert.deepEqual(cold.slice(0, 3).map((r) => [r.code, r.stdout]), [
        [0, "answer"],
        [0, "answer\n"],
        [2, ""],
      ]);
      assert.equal(cold[2].stderr, "svc run: --yes and --no cannot be combined\n");
      assert.match(cold[3].stdout, /^Usage: svc run \[options\] \[prompt\.\.\.\]\n/);
      assert.deepEqual([cold[4].code, cold[4].stderr.split("\n")[0]], [
        2,
        "error: unknown option '--bogus'",
      ]);
      const prompts = provider.requests.map((r) => r.body.messages.at(-1).content);
      assert.deepEqual(prompts.filter((p) => p === "from stdin").length, 2);
    }),
});

Deno.test({
  name:
    "Ctrl-C on a warm run cancels its turn (exit 130), and a killed client stops its warm svc's turn (needs setsid)",
  ignore,
  fn: () =>
    withWarm(() => ({ stall: true, text: "partial" }), {}, async (box, provider) => {
      const { bin } = await install();
      const env = { ...box.env, DENO_DIR, PATH };
      const args = runArgs(provider, "-p", "wait");
      // The first run starts the warm svc; its own stalled turn is cancelled by SIGTERM.
      const cold = new Deno.Command(bin, { args, cwd: box.worktree, env, stdout: "null" }).spawn();
      while (provider.requests.length < 1) await new Promise((r) => setTimeout(r, 20));
      cold.kill("SIGTERM");
      assert.equal((await cold.status).code, 143);
      await waitForSocket(box.home);

      const interrupted = new Deno.Command(bin, {
        args,
        cwd: box.worktree,
        env,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      while (provider.requests.length < 2) await new Promise((r) => setTimeout(r, 20));
      assert.equal(warmPidsIn(box.worktree).length, 1);
      interrupted.kill("SIGINT");
      const out = await interrupted.output();
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      assert.equal(out.code, 130, text(out.stderr));
      assert.equal(text(out.stdout), "partial\n");
      assert.match(
        text(out.stderr),
        /cancelling \(Ctrl-C again to quit at once\)\nstatus: cancelled\n$/,
      );

      await waitForSocket(box.home);
      const killed = new Deno.Command(bin, { args, cwd: box.worktree, env, stdout: "null" })
        .spawn();
      while (provider.requests.length < 3) await new Promise((r) => setTimeout(r, 20));
      const [serving] = warmPidsIn(box.worktree);
      assert.ok(serving, "a warm svc runs the turn");
      killed.kill("SIGKILL");
      await killed.status;
      // The warm svc sees its client gone, cancels the turn as on a hang-up and exits.
      for (let i = 0; i < 200 && warmPidsIn(box.worktree).includes(serving); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(warmPidsIn(box.worktree), []);
      const sessions = [...Deno.readDirSync(`${box.worktree}/.svc/sessions`)]
        .filter((e) => e.name.endsWith(".json"))
        .map((e) => JSON.parse(Deno.readTextFileSync(`${box.worktree}/.svc/sessions/${e.name}`)));
      // Each of the three turns saved its partial answer.
      assert.deepEqual(
        sessions.map((s) => s.messages.at(-1).content),
        ["partial", "partial", "partial"],
      );
    }),
});

Deno.test({
  name:
    "svc run hands nothing to a socket in a warm folder others can write or to a socket it does not own (needs setsid)",
  ignore,
  fn: () =>
    withWarm(() => ({ text: "answer" }), {}, async (box, provider) => {
      const args = runArgs(provider, "-p", "hi");
      assert.equal((await run(box, args)).code, 0);
      const { path } = await waitForSocket(box.home);
      await stopWarm(box.home);
      // The attack, without svc: whoever can put a socket at that path receives what connects.
      const dir = `${box.home}/.config/svc/warm`;
      await Deno.mkdir(dir, { recursive: true });
      const planted = Deno.listen({ transport: "unix", path });
      const received: number[] = [];
      const accepting = (async () => {
        for await (const conn of planted) {
          received.push(1);
          conn.close();
        }
      })();
      (await Deno.connect({ transport: "unix", path })).close();
      while (received.length < 1) await new Promise((r) => setTimeout(r, 10));
      received.length = 0;

      // A warm folder others can enter and write: svc runs the turn itself.
      await Deno.chmod(dir, 0o777);
      const open = await run(box, args, { env: { SVC_WARM: "1" } });
      assert.deepEqual([open.code, open.stdout, received.length], [0, "answer\n", 0]);
      // A private folder, but a socket of another user (root can make one).
      await Deno.chmod(dir, 0o700);
      const isRoot = Deno.statSync("/proc/self").uid === 0;
      if (isRoot) {
        await Deno.chown(path, 65534, 65534);
        const foreign = await run(box, args);
        assert.deepEqual([foreign.code, foreign.stdout, received.length], [0, "answer\n", 0]);
      }
      planted.close();
      await accepting;
    }),
});

Deno.test({
  name:
    "SVC_WARM=0 starts no warm svc, and a warm svc whose socket is removed exits (needs setsid)",
  ignore,
  fn: () =>
    withWarm(() => ({ text: "answer" }), {}, async (box, provider) => {
      const args = runArgs(provider, "-p", "hi");
      const off = await run(box, args, { env: { SVC_WARM: "0" } });
      assert.deepEqual([off.code, off.stdout], [0, "answer\n"]);
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(
        [...Deno.readDirSync(`${box.home}/.config/svc`)].map((e) => e.name).includes("warm"),
        false,
      );
      assert.equal((await run(box, args)).code, 0);
      const { path } = await waitForSocket(box.home);
      assert.equal(warmPidsOf(box.home).length, 1);
      await Deno.remove(path);
      for (let i = 0; i < 200 && warmPidsOf(box.home).length; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(warmPidsOf(box.home), []);
    }),
});

Deno.test({
  name:
    "garbage on the warm socket ends that warm svc without running anything, and the next svc run still answers (needs setsid)",
  ignore,
  fn: () =>
    withWarm(() => ({ text: "answer" }), {}, async (box, provider) => {
      const args = runArgs(provider, "-p", "hi");
      const hostile = [
        new TextEncoder().encode("GET / HTTP/1.1\r\n\r\n"), // not a frame: a length of 1.4 GB
        frame(FRAME.request, "{not json"),
        frame(
          FRAME.request,
          JSON.stringify({ build: "x", argv: ["run"], cwd: "/", env: {}, umask: 18 }),
        ),
        frame(
          FRAME.request,
          JSON.stringify({ argv: ["jobs", "daemon"], cwd: box.worktree, env: {} }),
        ),
      ];
      assert.equal((await run(box, args)).code, 0);
      for (const bytes of hostile) {
        const { path } = await waitForSocket(box.home);
        const [pid] = warmPidsOf(box.home);
        const conn = await Deno.connect({ transport: "unix", path });
        await conn.write(bytes);
        // The warm svc answers REFUSED or closes; either way it exits without a run.
        const reply = new Uint8Array(1);
        const n = await conn.read(reply).catch(() => null);
        assert.ok(n === null || reply[0] === FRAME.refused, `reply ${reply[0]}`);
        conn.close();
        for (let i = 0; i < 200 && warmPidsOf(box.home).includes(pid); i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(warmPidsOf(box.home).includes(pid), false);
        // No session was written for it; the next run answers (cold) and starts a warm svc again.
        const next = await run(box, args);
        assert.deepEqual([next.code, next.stdout], [0, "answer\n"]);
      }
      const sessions = [...Deno.readDirSync(`${box.worktree}/.svc/sessions`)]
        .filter((e) => e.name.endsWith(".json"));
      assert.equal(sessions.length, 1 + hostile.length);
      assert.equal(provider.requests.length, 1 + hostile.length);
    }),
});

function environOf(pid: number): string {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/environ`);
  } catch {
    return "";
  }
}
