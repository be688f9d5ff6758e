/**
 * An in-process jobs world on fake time: a temp HOME (this user's approvals and trust list) and
 * worktree, the scripted provider, the real runtime loaded as `svc jobs` loads it, and the daemon
 * and the runner called directly with a FakeClock. Nothing here sleeps: tests wait for the code to
 * reach a named wait (FakeClock.sleeping) or a log line, then move the time.
 */
import { setTrusted } from "../../src/config/trust.ts";
import { addJob } from "../../src/jobs/manage.ts";
import { type DaemonOptions, runDaemon } from "../../src/jobs/daemon.ts";
import { readRegister } from "../../src/jobs/register.ts";
import { runJob, type RunOptions } from "../../src/jobs/runner.ts";
import type { Job, JobDefinition } from "../../src/jobs/schema.ts";
import { Runtime } from "../../src/runtime/runtime.ts";
import { FakeClock } from "../_support/fake_clock.ts";
import { type FakeProvider, type Reply, startFakeProvider } from "../_support/fake_provider.ts";

/** The fake time every world starts at. */
export const T0 = new Date("2026-03-02T09:00:00Z");
/** T0 plus `seconds`, in the clock's epoch milliseconds. */
export const at = (seconds: number) => T0.getTime() + seconds * 1000;
/** T0 plus `seconds`, as the register stores times. */
export const iso = (seconds: number) => new Date(at(seconds)).toISOString();

type Body = { stream?: boolean; messages: Array<{ role: string; content: string }> };

/** Streamed answers `answer N`, memory summaries `memory after N`. */
function answers(): (body: Body) => Reply {
  let streamed = 0;
  let summaries = 0;
  return (body) =>
    body.stream === false
      ? { text: `memory after ${++summaries}` }
      : { text: `answer ${++streamed}` };
}

export interface World {
  home: string;
  worktree: string;
  fake: FakeProvider;
  clock: FakeClock;
  /** The fake now as a `Date`, what the jobs functions take. */
  now(): Date;
  /** Every line the daemon and the runner logged. */
  logs: string[];
  /** Adds a job (every 60 s unless given) at the fake now, as `svc jobs add` does. */
  add(name: string, definition?: Partial<JobDefinition>, auto?: boolean): Promise<Job>;
  job(name: string): Promise<Job>;
  /** Starts the daemon; `stop` aborts it (its signal) and resolves to what it returned. */
  daemon(
    tick?: number,
    extra?: Partial<DaemonOptions>,
  ): { stop(): Promise<{ refused: string } | { fired: number }> };
  /** A run as `svc jobs run` starts it (manual), on the fake clock. */
  run(name: string, extra?: Partial<RunOptions>): ReturnType<typeof runJob>;
  /** Resolves once `n` streamed (run) requests reached the provider. */
  streamed(n: number): Promise<void>;
  /** Resolves with the first log line matching `pattern`, logged already or to come. */
  logged(pattern: RegExp): Promise<string>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Sets HOME to a temp folder until the world is disposed (approvals, trust list, config). */
export async function world(
  options: { trusted?: boolean; reply?: (body: Body) => Reply } = {},
): Promise<World> {
  const home = await Deno.makeTempDir({ prefix: "svc-jobs-home-" });
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-jobs-work-" }));
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  const reply = options.reply ?? answers();
  let streamedCount = 0;
  const arrived: Array<() => void> = [];
  const fake = await startFakeProvider((body: Body) => {
    if (body.stream !== false) {
      streamedCount++;
      for (const notify of arrived.splice(0)) notify();
    }
    return reply(body);
  });
  await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
  await Deno.writeTextFile(
    `${home}/.config/svc/config.json`,
    JSON.stringify({ provider: "generic", base_url: fake.url, model: "m", stream_retries: 0 }),
  );
  if (options.trusted ?? true) await setTrusted(worktree);
  const clock = new FakeClock(T0.getTime());
  const logs: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const log = (line: string) => {
    logs.push(line);
    for (const listener of [...listeners]) listener(line);
  };
  const runtimes: Runtime[] = [];
  const load = async () => {
    const runtime = await Runtime.load({ path: worktree });
    runtimes.push(runtime);
    return runtime;
  };
  const daemons: Array<{ controller: AbortController; done: Promise<unknown> }> = [];
  return {
    home,
    worktree,
    fake,
    clock,
    now: () => new Date(clock.now()),
    logs,
    async add(name, definition = {}, auto = false) {
      const added = await addJob(worktree, {
        name,
        prompt: `Do ${name}`,
        task_file: `.svc/jobs/${name}.md`,
        schedule: { every: 60 },
        ...definition,
      } as JobDefinition, { auto, now: new Date(clock.now()) });
      return added.job;
    },
    async job(name) {
      return (await readRegister(worktree)).jobs.find((j) => j.name === name)!;
    },
    daemon(tick = 15, extra = {}) {
      const controller = new AbortController();
      const done = runDaemon({
        worktree,
        tickSeconds: tick,
        signal: controller.signal,
        loadRuntime: async () => {
          const runtime = await load();
          await runtime.start();
          return runtime;
        },
        log,
        clock,
        ...extra,
      });
      daemons.push({ controller, done: done.catch(() => {}) });
      return {
        stop: () => {
          controller.abort();
          return done;
        },
      };
    },
    run(name, extra = {}) {
      let runtime: Promise<Runtime> | undefined;
      return runJob({
        worktree,
        name,
        by: "manual",
        runtime: () => runtime ??= load(),
        clock,
        log,
        ...extra,
      });
    },
    streamed(n) {
      return new Promise((resolve) => {
        const check = () => streamedCount >= n ? resolve() : arrived.push(check);
        check();
      });
    },
    logged(pattern) {
      return new Promise((resolve) => {
        const found = logs.find((line) => pattern.test(line));
        if (found !== undefined) return resolve(found);
        const listener = (line: string) => {
          if (!pattern.test(line)) return;
          listeners.delete(listener);
          resolve(line);
        };
        listeners.add(listener);
      });
    },
    async [Symbol.asyncDispose]() {
      for (const { controller } of daemons) controller.abort();
      await Promise.all(daemons.map((d) => d.done));
      for (const runtime of runtimes) await runtime.plugins.close();
      await fake.close();
      if (oldHome === undefined) Deno.env.delete("HOME");
      else Deno.env.set("HOME", oldHome);
      await Deno.remove(home, { recursive: true });
      await Deno.remove(worktree, { recursive: true });
    },
  };
}
