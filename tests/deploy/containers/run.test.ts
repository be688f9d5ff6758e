/**
 * The image, built and run the way docs/fleet.md tells an operator to: `podman build` of
 * deploy/Dockerfile on a local base (no registry here, _images.ts), then the docs' own
 * `podman run` line (read from docs/fleet.md, only `$PWD` and the host port replaced) over an
 * agent folder laid out as the docs say: the worktree, svc's config folder (the provider, pointed
 * at a scripted backend on this host, and its key) and the token, all given to the image's user.
 * Part of `deno task test:deploy`, not of `deno task test`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeProvider } from "../../_support/fake_provider.ts";
import { IMAGE_ENTRYPOINT } from "../_entrypoint.ts";
import { buildSvcImage, imageSize, SVC_IMAGE } from "./_images.ts";
import {
  freePort,
  leftovers,
  podman,
  podmanRaw,
  removeAll,
  waitHealthy,
  whyNotRunnable,
} from "./_podman.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const AGENT_UID = 10001;
const skipped = await whyNotRunnable();
if (skipped) console.warn(`deploy: container tests skipped, ${skipped}`);

/** docs/fleet.md's `podman run` command as argv, `$PWD` made `pwd` and host port 8787 `port`. */
async function docsRunCommand(pwd: string, port: number): Promise<string[]> {
  const fleet = await Deno.readTextFile(join(ROOT, "docs/fleet.md"));
  const line = /\n(podman run [^]*?svc:[\d.]+)\n/.exec(fleet)?.[1];
  assert.ok(line, "docs/fleet.md has a podman run command");
  const words = line.replace(/\\\n\s*/g, " ").replaceAll("$PWD", pwd)
    .replace("127.0.0.1:8787:", `127.0.0.1:${port}:`)
    .match(/"[^"]*"|\S+/g)!;
  return words.slice(1).map((w) => w.replace(/^"(.*)"$/, "$1"));
}

/** The agent folder of the docs: work/ (a file to read), config/ and serve_token, as uid 10001. */
async function agentFolder(dir: string, providerPort: number, marker: string): Promise<string> {
  const agent = join(dir, "agent");
  await Deno.mkdir(join(agent, "work"), { recursive: true });
  await Deno.mkdir(join(agent, "config"));
  await Deno.writeTextFile(join(agent, "work/notes.txt"), `the marker is ${marker}\n`);
  await Deno.writeTextFile(
    join(agent, "config/config.json"),
    JSON.stringify({
      base_url: `http://host.containers.internal:${providerPort}`,
      model: "m",
    }),
  );
  await Deno.writeTextFile(
    join(agent, "config/providers.json"),
    JSON.stringify({ generic: { api_key: "key-from-the-mounted-providers-file" } }),
  );
  const token = crypto.randomUUID().replaceAll("-", "") + crypto.randomUUID().replaceAll("-", "");
  await Deno.writeTextFile(join(agent, "serve_token"), token);
  // chown -R 10001:10001 agent && chmod 700 agent/config && chmod 600 agent/config/* agent/serve_token
  for (const path of ["", "work", "work/notes.txt", "config", "serve_token"]) {
    await Deno.chown(join(agent, path), AGENT_UID, AGENT_UID);
  }
  for (const name of ["config.json", "providers.json"]) {
    await Deno.chown(join(agent, "config", name), AGENT_UID, AGENT_UID);
    await Deno.chmod(join(agent, "config", name), 0o600);
  }
  await Deno.chmod(join(agent, "config"), 0o700);
  await Deno.chmod(join(agent, "serve_token"), 0o600);
  return token;
}

Deno.test({
  name:
    "the image built from deploy/Dockerfile runs the docs' podman run: healthy, a chat reads a worktree file through a tool, non-root with svc's permission set, its HEALTHCHECK passes, no token is refused, secrets breaking the ownership rule stop it",
  ignore: skipped !== undefined,
  sanitizeResources: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "svc-deploy-run-" });
    const marker = crypto.randomUUID();
    const fake = await startFakeProvider((body) => {
      const last = body.messages.at(-1);
      if (last.role !== "tool") {
        return { tool_calls: [{ name: "file_read", arguments: { path: "notes.txt" } }] };
      }
      return { text: `read: ${JSON.stringify(last.content)}` };
    }, { hostname: "0.0.0.0" });
    const providerPort = Number(new URL(fake.url).port);
    const name = "svc-agent";
    try {
      await removeAll({ containers: [name] });
      const built = performance.now();
      const base = await buildSvcImage(ROOT);
      console.log(`deploy: base and image ready in ${Math.round(performance.now() - built)} ms`);
      const beyond = (await imageSize(SVC_IMAGE)) - (await imageSize(base));
      const token = await agentFolder(dir, providerPort, marker);
      const port = freePort();
      const args = await docsRunCommand(dir, port);
      const started = performance.now();
      await podman(args);
      const url = `http://127.0.0.1:${port}`;
      const healthyMs = await waitHealthy(`${url}/health`, started).catch(async (err) => {
        const logs = await podmanRaw(["logs", name]);
        throw new Error(`${err.message}\ncontainer log:\n${logs.stdout}${logs.stderr}`);
      });
      await new Promise((r) => setTimeout(r, 2000));
      const idle = await podman(["exec", name, "cat", "/proc/1/status"]);
      const idleMib = Number(/\nVmRSS:\s+(\d+) kB/.exec(idle)?.[1]) / 1024;
      const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };

      await t.step("GET /health answers ok", async () => {
        const res = await fetch(`${url}/health`);
        assert.deepEqual([res.status, await res.json()], [200, { status: "ok" }]);
      });

      await t.step("a request without the token, or with another, is refused", async () => {
        const wrong: Array<Record<string, string>> = [{}, {
          authorization: `Bearer ${"0".repeat(64)}`,
        }];
        for (const headers of wrong) {
          const res = await fetch(`${url}/chat`, {
            method: "POST",
            headers: { ...headers, "content-type": "application/json" },
            body: JSON.stringify({ prompt: "read notes.txt" }),
          });
          assert.deepEqual(
            [res.status, await res.json()],
            [401, { error: "unauthorized: a valid bearer token is required" }],
          );
        }
        assert.equal(fake.requests.filter((r) => r.path === "/v1/chat/completions").length, 0);
      });

      await t.step(
        "an authenticated POST /chat reads the worktree's file through file_read",
        async () => {
          const res = await fetch(`${url}/chat`, {
            method: "POST",
            headers: auth,
            body: JSON.stringify({ prompt: "read notes.txt", session_id: "in-container" }),
          });
          const result = await res.json();
          assert.equal(res.status, 200, JSON.stringify(result));
          assert.deepEqual([result.status, result.session], ["ok", "in-container"]);
          assert.match(result.content, new RegExp(`the marker is ${marker}`));
          const chats = fake.requests.filter((r) => r.path === "/v1/chat/completions");
          assert.equal(chats.length, 2);
          assert.equal(
            chats[0].headers.authorization,
            "Bearer key-from-the-mounted-providers-file",
          );
          // The session is written to the worktree volume, as the image's user.
          const session = await Deno.stat(join(dir, "agent/work/.svc/sessions/in-container.json"));
          assert.equal(session.uid, AGENT_UID);
        },
      );

      await t.step("the container's HEALTHCHECK is the Dockerfile's and passes", async () => {
        const check = JSON.parse(
          await podman(["image", "inspect", "--format", "{{json .Config.Healthcheck}}", SVC_IMAGE]),
        );
        assert.equal(check.Test[0], "CMD");
        assert.match(check.Test.at(-1), /\/health`\); Deno\.exit\(r\.ok \? 0 : 1\)/);
        const ran = await podmanRaw(["healthcheck", "run", name]);
        assert.equal(ran.code, 0, ran.stdout + ran.stderr);
        const health = await podman(["inspect", "--format", "{{.State.Health.Status}}", name]);
        assert.equal(health, "healthy");
      });

      await t.step(
        "svc runs as uid 10001 with svc's explicit permission set, never -A",
        async () => {
          const status = await podman(["exec", name, "cat", "/proc/1/status"]);
          assert.match(status, new RegExp(`\\nUid:\\t${AGENT_UID}\\t${AGENT_UID}\\t`));
          const argv = (await podman(["exec", name, "cat", "/proc/1/cmdline"])).split("\0")
            .filter(Boolean);
          assert.deepEqual(argv, [
            ...IMAGE_ENTRYPOINT,
            "--host",
            "0.0.0.0",
            "--token-file",
            "/run/secrets/svc/serve_token",
          ]);
          const rss = Number(/\nVmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
          console.log(
            `deploy: image ${(beyond / 1e6).toFixed(1)} MB beyond the base, healthy ` +
              `${Math.round(healthyMs)} ms after podman run, RSS ${idleMib.toFixed(1)} MiB idle, ` +
              `${rss.toFixed(1)} MiB after one chat`,
          );
          assert.ok(beyond < 250e6, `the image adds ${beyond} bytes to its base`);
        },
      );

      await t.step(
        "mounted secrets that break svc's ownership rule stop the container before it serves",
        async () => {
          const cases = [
            { mode: 0o620, uid: AGENT_UID, says: "can be written by group (mode 0620)" },
            { mode: 0o600, uid: 4242, says: "belongs to user id 4242, not to you (10001)" },
          ];
          for (const { mode, uid, says } of cases) {
            const token = join(dir, `token-${uid}-${mode.toString(8)}`);
            await Deno.copyFile(join(dir, "agent/serve_token"), token);
            await Deno.chown(token, uid, uid);
            await Deno.chmod(token, mode);
            // Started detached and watched: podman run --rm (or podman wait) on this host takes
            // 20 s after the exit to give up on systemd's healthcheck timers.
            const bad = `svc-agent-refused-${uid}`;
            await podman([
              "run",
              "-d",
              "--name",
              bad,
              "-v",
              `${dir}/agent/work:/work`,
              "-v",
              `${dir}/agent/config:/home/svc/.config/svc`,
              "-v",
              `${token}:/run/secrets/svc/serve_token:ro`,
              SVC_IMAGE,
            ]);
            let state = "";
            // "stopped" until podman's cleanup has run, then "exited": both mean svc has ended.
            const ended = () => state === "exited" || state === "stopped";
            for (let i = 0; i < 100 && !ended(); i++) {
              await new Promise((r) => setTimeout(r, 100));
              state = await podman(["inspect", "--format", "{{.State.Status}}", bad]);
            }
            const code = await podman(["inspect", "--format", "{{.State.ExitCode}}", bad]);
            const ran = { ...await podmanRaw(["logs", bad]), code: Number(code) };
            await removeAll({ containers: [bad] });
            assert.deepEqual([ended(), ran.code === 0], [true, false]);
            assert.ok(ran.stderr.includes(`/run/secrets/svc/serve_token ${says}`), ran.stderr);
          }
        },
      );
    } finally {
      await removeAll({
        containers: [name, `svc-agent-refused-${AGENT_UID}`, "svc-agent-refused-4242"],
      });
      await fake.close();
      await Deno.remove(dir, { recursive: true });
    }
    assert.deepEqual(await leftovers(), []);
  },
});
