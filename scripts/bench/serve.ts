/**
 * `svc serve`: GET /health throughput (wrk when installed, else an in-Deno load generator) and
 * POST /chat latency above an instant local provider, with the worktree on disk and on tmpfs
 * (the difference is the fsync of the two durable session appends of every turn).
 */
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";
import { harness } from "../../tests/_support/engine.ts";
import { listeningUrl, MAIN, median, report } from "./_util.ts";

const fake = await startFakeProvider(() => ({ text: "pong", chunkSize: 1000 }));
try {
  const disk = await startServe(Deno.env.get("TMPDIR") ?? "/tmp");
  try {
    await health(disk.url);
    await chat(disk.url, disk.auth, "worktree on disk");
  } finally {
    await disk.stop();
  }
  await engineOnly();
  const tmpfs = await Deno.stat("/dev/shm").then(() => true, () => false);
  if (tmpfs) {
    const shm = await startServe("/dev/shm");
    try {
      await chat(shm.url, shm.auth, "worktree on tmpfs");
    } finally {
      await shm.stop();
    }
  }
} finally {
  await fake.close();
}

/** Spawns `svc serve --port 0` over a fresh worktree under `root`. */
async function startServe(root: string) {
  const home = await Deno.makeTempDir();
  const cwd = await Deno.makeTempDir({ dir: root });
  await Deno.mkdir(`${cwd}/.svc`);
  await Deno.writeTextFile(
    `${cwd}/.svc/config.json`,
    JSON.stringify({ base_url: fake.url, model: "m", plugins: ["svc-core-mcp"] }),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", MAIN, "serve", "--port", "0"],
    cwd,
    env: { HOME: home, PATH: Deno.env.get("PATH") ?? "" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const url = await listeningUrl(child.stderr);
  const token = (await Deno.readTextFile(`${home}/.config/svc/serve_token`)).trim();
  return {
    url,
    auth: { authorization: `Bearer ${token}` },
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(home, { recursive: true });
      await Deno.remove(cwd, { recursive: true });
    },
  };
}

async function health(url: string): Promise<void> {
  const wrk = await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" })
    .output().then(() => true, () => false);
  const runs: number[] = [];
  if (wrk) {
    await wrkRun(`${url}/health`, 2); // warm-up
    for (let i = 0; i < 5; i++) runs.push(await wrkRun(`${url}/health`, 5));
    report("GET /health, wrk -t2 -c64 -d5s", runs, "req/s", ">= 10000 req/s");
    return;
  }
  console.log("wrk is not installed (apt-get install wrk); using an in-Deno load generator");
  for (let i = 0; i < 3; i++) runs.push(await loadGenerator(`${url}/health`, 32, 3000));
  report("GET /health, in-Deno fetch x32 for 3 s", runs, "req/s", ">= 10000 req/s (wrk)");
}

async function wrkRun(url: string, seconds: number): Promise<number> {
  const out = await new Deno.Command("wrk", {
    args: ["-t2", "-c64", `-d${seconds}s`, url],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
}

async function chat(url: string, auth: Record<string, string>, label: string): Promise<void> {
  const body = JSON.stringify({ prompt: "ping", session_id: "bench" });
  const headers = { "content-type": "application/json", ...auth };
  const post = () => fetch(`${url}/chat`, { method: "POST", headers, body });
  const direct = () =>
    fetch(`${fake.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        stream: true,
        messages: [{ role: "user", content: "p" }],
      }),
    });
  const time = async (fn: () => Promise<Response>) => {
    const start = performance.now();
    await (await fn()).arrayBuffer();
    return performance.now() - start;
  };
  for (let i = 0; i < 10; i++) await time(post);
  const chats: number[] = [];
  const provider: number[] = [];
  for (let i = 0; i < 60; i++) {
    provider.push(await time(direct));
    chats.push(await time(post));
  }
  report(`POST /chat round trip, ${label}`, chats);
  report("  the provider's own streamed reply", provider);
  const overhead = chats.map((c, i) => c - provider[i]);
  report("  added over the provider", overhead, "ms", "< 5 ms median");
  console.log(`  median overhead ${median(overhead).toFixed(2)} ms`);
}

/** The same turn in-process (no HTTP): what the engine and its session appends cost alone. */
async function engineOnly(): Promise<void> {
  await using h = await harness([]);
  const turn = async () => {
    const start = performance.now();
    const session = await h.store.openOrCreate("bench");
    await h.engine.runTurn("ping", { session });
    return performance.now() - start;
  };
  for (let i = 0; i < 10; i++) await turn();
  const turns: number[] = [];
  for (let i = 0; i < 60; i++) turns.push(await turn());
  report("engine turn in-process, worktree on disk", turns, "ms");
  console.log("  (POST /chat minus this is the HTTP layer's own cost)");
}

/** Requests per second from `connections` concurrent fetch loops for `ms` milliseconds. */
async function loadGenerator(url: string, connections: number, ms: number): Promise<number> {
  let count = 0;
  const end = performance.now() + ms;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < end) {
      await (await fetch(url)).arrayBuffer();
      count++;
    }
  }));
  return count / (ms / 1000);
}
