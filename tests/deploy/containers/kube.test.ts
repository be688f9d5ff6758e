/**
 * deploy/k8s run as docs/fleet.md says: its kustomization rendered by `kubectl kustomize` (what
 * `kubectl apply -k` applies) and played by `podman kube play` (Deployment with its init
 * container, ConfigMap, Secret, PersistentVolumeClaim; Podman publishes the container port on the
 * host, as far as it maps the Service), probed on /health, a chat written to the worktree
 * volume, the pod replaced and the session found again. The scaling overlay (deploy/agents/) is
 * rendered and checked for one agent's own names. Part of `deno task test:deploy`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { startFakeProvider } from "../../_support/fake_provider.ts";
import { buildSvcImage } from "./_images.ts";
import { leftovers, podman, podmanRaw, removeAll, waitHealthy, whyNotRunnable } from "./_podman.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
/** The port Podman publishes the pod's containerPort on (it maps containerPort to the host). */
const POD_PORT = 8787;

async function kubectl(args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("kubectl", { args, stdout: "piped", stderr: "piped" })
      .output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

const skipped = (await whyNotRunnable()) ??
  ((await kubectl(["version", "--client"])) === undefined
    ? "kubectl is missing (its kustomize renders deploy/k8s)"
    : undefined);
if (skipped) console.warn(`deploy: Kubernetes tests skipped, ${skipped}`);

/** deploy/k8s and deploy/agents copied into `dir`, with the files an operator writes first. */
async function operatorCopy(dir: string, providerPort: number, token: string): Promise<void> {
  for (const folder of ["k8s", "agents"]) {
    const cp = await new Deno.Command("cp", {
      args: ["-r", join(ROOT, "deploy", folder), join(dir, folder)],
    }).output();
    assert.ok(cp.success);
  }
  await Deno.writeTextFile(join(dir, "k8s/secrets/serve_token"), `${token}\n`);
  await Deno.writeTextFile(
    join(dir, "k8s/secrets/providers.json"),
    JSON.stringify({ generic: { api_key: "key-from-the-secret" } }),
  );
  await Deno.writeTextFile(
    join(dir, "k8s/config.json"),
    JSON.stringify({ base_url: `http://host.containers.internal:${providerPort}`, model: "m" }),
  );
}

type Doc = { kind: string; metadata: { name: string }; [key: string]: unknown };

function docsOf(yaml: string): Doc[] {
  return parseAllDocuments(yaml).map((d) => d.toJS() as Doc);
}

/**
 * What `podman kube play` is given: kustomize's documents as rendered, except on Podman before
 * 4.4 (Debian 12 has 4.3), whose kube play cannot mount a Secret's values: it writes `data`
 * still base64-encoded into the files and drops `stringData`. There the Secret's decoded files
 * travel in a ConfigMap of the same name, mounted where the Secret would be; everything else
 * (names, mounts, the Deployment) is as rendered.
 */
async function forPodman(docs: Doc[]): Promise<string> {
  const [major, minor] = (await podman(["version", "--format", "{{.Client.Version}}"]))
    .split(".").map(Number);
  const old = major < 4 || (major === 4 && minor < 4);
  return docs.map((doc) => {
    if (!old) return JSON.stringify(doc);
    if (doc.kind === "Secret") {
      const data = Object.fromEntries(
        Object.entries(doc.data as Record<string, string>)
          .map(([k, v]) => [k, new TextDecoder().decode(decode64(v))]),
      );
      return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: doc.metadata, data });
    }
    if (doc.kind !== "Deployment") return JSON.stringify(doc);
    const copy = structuredClone(doc);
    // deno-lint-ignore no-explicit-any
    for (const volume of (copy as any).spec.template.spec.volumes) {
      if (!volume.secret) continue;
      volume.configMap = { name: volume.secret.secretName };
      delete volume.secret;
    }
    return JSON.stringify(copy);
  }).join("\n---\n");
}

function decode64(text: string): Uint8Array {
  return Uint8Array.from(atob(text.replace(/\s/g, "")), (c) => c.charCodeAt(0));
}

Deno.test({
  name:
    "deploy/k8s rendered by kustomize runs under podman kube play: healthy, a chat's session survives the pod's replacement on the worktree volume",
  ignore: skipped !== undefined,
  sanitizeResources: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "svc-deploy-kube-" });
    const fake = await startFakeProvider(() => ({ text: "answer from the host" }), {
      hostname: "0.0.0.0",
    });
    const token = crypto.randomUUID().replaceAll("-", "").repeat(2);
    // What a run killed before its cleanup left in the test's store goes first.
    await removeAll({ pods: ["svc-agent-pod-0"], volumes: ["svc-agent-worktree"] });
    const volumesBefore = new Set(
      (await podman(["volume", "ls", "--format", "{{.Name}}"])).split("\n").filter(Boolean),
    );
    const played = join(dir, "played.yaml");
    let docs: Doc[] = [];
    try {
      try {
        Deno.listen({ hostname: "0.0.0.0", port: POD_PORT }).close();
      } catch (err) {
        throw new Error(
          `port ${POD_PORT} is taken (${(err as Error).message}): podman kube play publishes ` +
            "the pod's containerPort there; stop what listens on it and rerun",
        );
      }
      await buildSvcImage(ROOT);
      await operatorCopy(dir, Number(new URL(fake.url).port), token);
      // kubectl kustomize deploy/k8s | podman kube play -
      const rendered = (await kubectl(["kustomize", join(dir, "k8s")]))!;
      docs = docsOf(rendered);
      assert.deepEqual(docs.map((d) => d.kind).sort(), [
        "ConfigMap",
        "Deployment",
        "PersistentVolumeClaim",
        "Secret",
        "Service",
      ]);
      await Deno.writeTextFile(played, await forPodman(docs));
      const url = `http://127.0.0.1:${POD_PORT}`;
      const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      // Podman names a pod's container <pod>-<container>: svc-agent-pod-0-svc.
      const container = async () =>
        (await podman(["ps", "--format", "{{.Names}}"])).split("\n").find((n) =>
          n.startsWith("svc-agent-pod") && n.endsWith("-svc")
        )!;

      await t.step("kube play starts the pod and /health answers on the mapped port", async () => {
        const started = performance.now();
        await podman(["kube", "play", played]);
        const ms = await waitHealthy(`${url}/health`, started).catch(async (err) => {
          const logs = await podmanRaw(["logs", "svc-agent-pod-0-svc"]);
          throw new Error(`${err.message}\ncontainer log:\n${logs.stdout}${logs.stderr}`);
        });
        console.log(`deploy: pod healthy ${Math.round(ms)} ms after kube play`);
        const res = await fetch(`${url}/health`);
        assert.deepEqual([res.status, await res.json()], [200, { status: "ok" }]);
      });

      await t.step(
        "a chat without the token is refused, with it the session is written",
        async () => {
          const refused = await fetch(`${url}/chat`, {
            method: "POST",
            body: JSON.stringify({ prompt: "hello" }),
          });
          assert.equal(refused.status, 401);
          await refused.body?.cancel();
          const res = await fetch(`${url}/chat`, {
            method: "POST",
            headers: auth,
            body: JSON.stringify({ prompt: "hello", session_id: "before-restart" }),
          });
          const result = await res.json();
          assert.equal(res.status, 200, JSON.stringify(result));
          assert.deepEqual([result.status, result.content], ["ok", "answer from the host"]);
          const chats = fake.requests.filter((r) => r.path === "/v1/chat/completions");
          assert.equal(chats[0].headers.authorization, "Bearer key-from-the-secret");
        },
      );

      await t.step(
        "the files svc reads are its own or root's and writable by no one else",
        async () => {
          const name = await container();
          const stat = await podman([
            "exec",
            name,
            "stat",
            "-L",
            "-c",
            "%u %a %n",
            "/home/svc/.config/svc",
            "/home/svc/.config/svc/config.json",
            "/home/svc/.config/svc/providers.json",
            "/run/secrets/svc/serve_token",
          ]);
          const lines = stat.split("\n");
          assert.deepEqual(lines.slice(0, 3), [
            "10001 700 /home/svc/.config/svc",
            "10001 600 /home/svc/.config/svc/config.json",
            "10001 600 /home/svc/.config/svc/providers.json",
          ]);
          const [uid, mode] = lines[3].split(" ");
          assert.ok(["0", "10001"].includes(uid), lines[3]);
          assert.equal(parseInt(mode, 8) & 0o022, 0, lines[3]);
        },
      );

      await t.step(
        "the pod replaced (kube down, kube play without the bound claim) finds the session on the volume",
        async () => {
          await podman(["kube", "down", played]);
          assert.equal((await podmanRaw(["volume", "exists", "svc-agent-worktree"])).code, 0);
          const rest = docs.filter((d) => d.kind !== "PersistentVolumeClaim");
          const secret = docs.find((d) => d.kind === "Secret")!.metadata.name;
          const keep = (await podmanRaw(["secret", "exists", secret])).code === 0
            ? rest.filter((d) => d.kind !== "Secret")
            : rest;
          const again = join(dir, "again.yaml");
          await Deno.writeTextFile(again, await forPodman(keep));
          const started = performance.now();
          await podman(["kube", "play", again]);
          await waitHealthy(`${url}/health`, started);
          const sessions = await (await fetch(`${url}/sessions`, { headers: auth })).json();
          assert.deepEqual(sessions, { sessions: ["before-restart"] });
          const mount = await podman([
            "volume",
            "inspect",
            "--format",
            "{{.Mountpoint}}",
            "svc-agent-worktree",
          ]);
          const file = await Deno.stat(join(mount, ".svc/sessions/before-restart.json"));
          assert.ok(file.isFile);
        },
      );
    } finally {
      await podmanRaw(["kube", "down", played]);
      const named = (kind: string) =>
        docs.filter((d) => d.kind === kind).map((d) => d.metadata.name);
      const pods = (await podmanRaw(["pod", "ls", "--format", "{{.Name}}"])).stdout.split("\n")
        .filter((p) => p.startsWith("svc-agent-pod"));
      const volumes = (await podmanRaw(["volume", "ls", "--format", "{{.Name}}"])).stdout
        .split("\n").filter((v) => v && !volumesBefore.has(v));
      await removeAll({ pods, volumes, secrets: named("Secret") });
      await fake.close();
      await Deno.remove(dir, { recursive: true });
    }
    assert.deepEqual(await leftovers(), []);
  },
});

Deno.test({
  name:
    "the scaling overlay deploy/agents/agent-b renders a second agent with its own names, selector, volume, config and token",
  ignore: skipped !== undefined,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "svc-deploy-overlay-" });
    try {
      await operatorCopy(dir, 1, "a".repeat(64));
      await Deno.writeTextFile(join(dir, "agents/agent-b/serve_token"), "b".repeat(64));
      const docs = docsOf((await kubectl(["kustomize", join(dir, "agents/agent-b")]))!);
      const names = Object.fromEntries(docs.map((d) => [d.kind, d.metadata.name]));
      assert.deepEqual(
        [names.Deployment, names.Service, names.PersistentVolumeClaim],
        ["svc-agent-b", "svc-agent-b", "svc-agent-worktree-b"],
      );
      assert.match(names.ConfigMap, /^svc-agent-config-b-/);
      assert.match(names.Secret, /^svc-agent-secrets-b-/);
      // deno-lint-ignore no-explicit-any
      const deployment = docs.find((d) => d.kind === "Deployment") as any;
      const selector = {
        "app.kubernetes.io/instance": "agent-b",
        "app.kubernetes.io/name": "svc-agent",
      };
      assert.deepEqual(deployment.spec.selector.matchLabels, selector);
      // deno-lint-ignore no-explicit-any
      assert.deepEqual((docs.find((d) => d.kind === "Service") as any).spec.selector, selector);
      const volumes = Object.fromEntries(
        // deno-lint-ignore no-explicit-any
        deployment.spec.template.spec.volumes.map((v: any) => [v.name, v]),
      );
      assert.deepEqual(
        [
          volumes.worktree.persistentVolumeClaim.claimName,
          volumes.config.configMap.name,
          volumes.secrets.secret.secretName,
        ],
        [names.PersistentVolumeClaim, names.ConfigMap, names.Secret],
      );
      // deno-lint-ignore no-explicit-any
      const secret = docs.find((d) => d.kind === "Secret") as any;
      assert.deepEqual(Object.keys(secret.data).sort(), ["providers.json", "serve_token"]);
      assert.equal(atob(secret.data.serve_token.replace(/\s/g, "")), "b".repeat(64));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
