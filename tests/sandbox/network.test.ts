/**
 * sandbox.network.allowedDomains end to end: a real loopback server, sandboxed curl run through
 * runShell (bubblewrap, the bridge inside, the filtering proxy in this process).
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { ConfigSchema } from "../../src/config/schema.ts";
import { sandboxSettings } from "../../src/sandbox/settings.ts";
import { sandboxKind } from "../../src/sandbox/probe.ts";
import { runShell } from "../../src/tool/shell.ts";
import type { ToolOutput } from "../../src/tool/types.ts";

const kind = await sandboxKind();
const ignore = !kind.ok || kind.kind !== "bubblewrap";
if (ignore) {
  console.warn(`network tests skipped: ${kind.ok ? `${kind.kind} sandbox` : kind.reason}`);
}
const CURL = "/usr/bin/curl";

/** A loopback server that counts its requests, and a worktree to run commands in. */
async function netBox() {
  let hits = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => {
      hits++;
      return new Response("hello from the loopback server\n");
    },
  );
  const worktree = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "svc-net-" }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    get hits() {
      return hits;
    },
    run(command: string, config: Record<string, unknown> = {}): Promise<ToolOutput> {
      const sandbox = sandboxSettings(ConfigSchema.parse(config), worktree);
      return runShell(command, { cwd: worktree, worktree, sandbox, timeoutS: 20 });
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await Deno.remove(worktree, { recursive: true });
    },
  };
}

const ALLOW_LOOPBACK = { "sandbox.network.allowedDomains": ["127.0.0.1"] };

/** Processes whose command line names the bridge script. */
async function bridges(): Promise<number> {
  let found = 0;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^[0-9]+$/.test(entry.name)) continue;
    const line = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    if (line.includes("/tmp/.svc-net/bridge.js")) found++;
  }
  return found;
}

Deno.test({
  name: "the same curl reaches the loopback server outside the sandbox (the control)",
  ignore,
  async fn() {
    await using box = await netBox();
    const out = await new Deno.Command(CURL, {
      args: ["-sS", "-m", "5", box.url],
      env: { PATH: "/usr/bin:/bin" },
      clearEnv: true,
    }).output();
    assert.equal(out.code, 0);
    assert.equal(new TextDecoder().decode(out.stdout), "hello from the loopback server\n");
  },
});

Deno.test({
  name: "a sandboxed command has no network when allowedDomains is empty",
  ignore,
  async fn() {
    await using box = await netBox();
    const out = await box.run(`${CURL} -sS -m 5 ${box.url}`);
    assert.doesNotMatch(out.content, /^exit code 0$/m);
    assert.doesNotMatch(out.content, /hello from the loopback server/);
    assert.equal(box.hits, 0);
  },
});

Deno.test({
  name: "allowedDomains 127.0.0.1 lets sandboxed curl reach the server through the proxy",
  ignore,
  async fn() {
    await using box = await netBox();
    const out = await box.run(`${CURL} -sS -m 5 ${box.url} && echo "via $HTTP_PROXY"`, {
      ...ALLOW_LOOPBACK,
    });
    assert.match(out.content, /^exit code 0$/m);
    assert.match(out.content, /hello from the loopback server/);
    assert.match(out.content, /via http:\/\/127\.0\.0\.1:[0-9]+$/m);
    assert.equal(box.hits, 1);
    assert.equal(await bridges(), 0, "the bridge ended with the command");
  },
});

Deno.test({
  name: "an allowed host is reached through a CONNECT tunnel too",
  ignore,
  async fn() {
    await using box = await netBox();
    const out = await box.run(`${CURL} -sS -m 5 --proxytunnel ${box.url}`, ALLOW_LOOPBACK);
    assert.match(out.content, /^exit code 0$/m);
    assert.match(out.content, /hello from the loopback server/);
  },
});

Deno.test({
  name: "deniedDomains wins over allowedDomains with a 403 naming the setting",
  ignore,
  async fn() {
    await using box = await netBox();
    const out = await box.run(`${CURL} -sS -m 5 -w '%{http_code}' ${box.url}`, {
      ...ALLOW_LOOPBACK,
      "sandbox.network.deniedDomains": ["127.0.0.1"],
    });
    assert.match(out.content, /blocked by sandbox\.network\.deniedDomains/);
    assert.match(out.content, /403$/m);
    assert.equal(box.hits, 0);
  },
});

Deno.test({
  name: "*.example.test admits subdomains only, not 127.0.0.1",
  ignore,
  async fn() {
    await using box = await netBox();
    const out = await box.run(`${CURL} -sS -m 5 -w '%{http_code}' ${box.url}`, {
      "sandbox.network.allowedDomains": ["*.example.test"],
    });
    assert.match(out.content, /127\.0\.0\.1 is not in sandbox\.network\.allowedDomains/);
    assert.match(out.content, /403$/m);
    assert.equal(box.hits, 0);
  },
});

Deno.test({
  name: "a CONNECT to a host that is not listed is refused with 403",
  ignore,
  async fn() {
    await using box = await netBox();
    const out = await box.run(`${CURL} -sS -m 5 https://not-listed.example.test/`, ALLOW_LOOPBACK);
    assert.doesNotMatch(out.content, /^exit code 0$/m);
    assert.match(out.content, /CONNECT tunnel failed, response 403/);
  },
});

Deno.test({
  name: "a request whose Host header disagrees with its URI is refused with 400",
  ignore,
  async fn() {
    await using box = await netBox();
    const out = await box.run(
      `${CURL} -sS -m 5 -w '%{http_code}' -H 'Host: evil.example.test' ${box.url}`,
      ALLOW_LOOPBACK,
    );
    assert.match(out.content, /the Host header does not match the request target/);
    assert.match(out.content, /400$/m);
    assert.equal(box.hits, 0);
  },
});

Deno.test({
  name: "a command whose bridge cannot start does not run, and says why",
  ignore,
  async fn() {
    await using box = await netBox();
    // Hiding the Deno binary's folder leaves the wrapper nothing to start the bridge with.
    const out = await box.run("echo the command ran", {
      ...ALLOW_LOOPBACK,
      "sandbox.filesystem.denyRead": [dirname(Deno.execPath())],
    });
    assert.match(out.content, /^exit code 126$/m);
    assert.match(out.content, /the network bridge did not start/);
    assert.doesNotMatch(out.content, /the command ran/);
  },
});
