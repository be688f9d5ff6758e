/** Spawns `svc serve --port 0` as a user would and finds the bound address on stderr. */
import { spawnSvc } from "../_support/cli.ts";

import { TEST_MAIN as MAIN } from "../_support/builds.ts";

export interface Served {
  url: string;
  port: number;
  /** The bearer token the server requires (from its token file), or null under --no-auth. */
  token: string | null;
  /** `{authorization: "Bearer <token>"}`, or nothing under --no-auth. */
  auth: Record<string, string>;
  /** fetch with the server's token added (for MCP clients and plain calls). */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
  child: Deno.ChildProcess;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number>;
  /** Sends SIGTERM (if still running) and waits for the exit. */
  stop(): Promise<number>;
}

/** Writes `.svc/config.json` pointing the worktree at a fake provider. */
export async function writeConfig(
  worktree: string,
  providerUrl: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await Deno.mkdir(`${worktree}/.svc`, { recursive: true });
  await Deno.writeTextFile(
    `${worktree}/.svc/config.json`,
    JSON.stringify({ base_url: providerUrl, model: "m", stream_retry_delay: 0.01, ...extra }),
  );
}

/**
 * Starts `svc serve` with `args` (plus `--port 0` unless given) and waits for "listening on".
 * The token is read from the file the startup line names (`--token-file`, or the one svc serve
 * creates under the sandbox's HOME).
 */
export async function startServe(
  args: string[],
  options: { cwd: string; env: Record<string, string>; ulimitFiles?: number },
): Promise<Served> {
  const withPort = args.includes("--port") || options.env.SVC_PORT
    ? args
    : [...args, "--port", "0"];
  const child = options.ulimitFiles
    ? limited(withPort, options)
    : spawnSvc(["serve", ...withPort], options);
  child.stdout.cancel();
  let text = "";
  let resolveUrl!: (url: string) => void;
  let rejectUrl!: (err: Error) => void;
  const found = new Promise<string>((resolve, reject) => {
    resolveUrl = resolve;
    rejectUrl = reject;
  });
  const exited = child.status.then((s) => s.code);
  (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      text += decoder.decode(chunk, { stream: true });
      const match = /listening on (http:\/\/\S+) .*\n/.exec(text);
      if (match) resolveUrl(match[1]);
    }
    rejectUrl(new Error(`svc serve exited before listening:\n${text}`));
  })();
  const timer = setTimeout(() => rejectUrl(new Error(`svc serve did not start:\n${text}`)), 8000);
  const url = await found.finally(() => clearTimeout(timer));
  const tokenFile = /; (?:new )?token in (.+)\)$/m.exec(text)?.[1];
  const token = tokenFile ? (await Deno.readTextFile(tokenFile)).trim() : null;
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return {
    url,
    port: Number(new URL(url).port),
    token,
    auth,
    fetch(target, init) {
      const headers = new Headers(init?.headers);
      if (token) headers.set("authorization", `Bearer ${token}`);
      return fetch(target, { ...init, headers });
    },
    child,
    stderr: () => text,
    exited,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already exited
      }
      return await exited;
    },
  };
}

/** Sends one raw HTTP/1.1 request over TCP (fetch cannot forge a Host header). */
export async function rawRequest(port: number, head: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(head));
    const chunks: string[] = [];
    const buffer = new Uint8Array(4096);
    const decoder = new TextDecoder();
    while (true) {
      const n = await conn.read(buffer);
      if (n === null) break;
      chunks.push(decoder.decode(buffer.subarray(0, n), { stream: true }));
      if (/\r\n\r\n[\s\S]*\}$/.test(chunks.join(""))) break;
    }
    return chunks.join("");
  } finally {
    conn.close();
  }
}

/** `svc serve` under `ulimit -n <ulimitFiles>` (soft and hard), through bash. */
function limited(
  args: string[],
  options: { cwd: string; env: Record<string, string>; ulimitFiles?: number },
): Deno.ChildProcess {
  const command = [Deno.execPath(), "run", "-A", "--quiet", MAIN, "serve", ...args]
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
  return new Deno.Command("bash", {
    args: ["-c", `ulimit -n ${options.ulimitFiles} && exec ${command}`],
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
