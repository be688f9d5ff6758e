/**
 * What this machine can check of deploy/ without docker or kubectl: the Kubernetes manifests
 * parse as YAML and hold the structure an agent needs (checked with zod, cross-references
 * resolved), the agent config in the ConfigMap is a valid svc config, and the Dockerfile runs
 * `svc serve` non-root with svc's permission set and a /health check.
 */
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { z } from "zod";
import { ConfigSchema } from "../../src/config/schema.ts";
import { SVC_PERMISSIONS, SVC_V8_FLAGS } from "../../src/launch/svc_command.ts";

const DEPLOY = new URL("../../deploy/", import.meta.url).pathname;

const Meta = z.object({
  name: z.string().regex(/^[a-z0-9-]+$/),
  labels: z.record(z.string(), z.string()),
});
const Probe = z.object({
  httpGet: z.object({ path: z.literal("/health"), port: z.union([z.number(), z.string()]) }),
  timeoutSeconds: z.number().int().positive(),
});
const Mount = z.object({
  name: z.string(),
  mountPath: z.string().startsWith("/"),
  subPath: z.string().optional(),
  readOnly: z.boolean().optional(),
});
const Container = z.object({
  name: z.string(),
  image: z.string().min(1),
  args: z.array(z.string()),
  env: z.array(z.object({ name: z.string(), value: z.string() })),
  ports: z.array(z.object({ name: z.string(), containerPort: z.number().int() })).min(1),
  livenessProbe: Probe,
  readinessProbe: Probe,
  volumeMounts: z.array(Mount),
  securityContext: z.object({ allowPrivilegeEscalation: z.literal(false) }),
});
const Volume = z.object({
  name: z.string(),
  persistentVolumeClaim: z.object({ claimName: z.string() }).optional(),
  configMap: z.object({ name: z.string() }).optional(),
  secret: z.object({ secretName: z.string(), defaultMode: z.number().optional() }).optional(),
  emptyDir: z.object({}).optional(),
});
const Deployment = z.object({
  apiVersion: z.literal("apps/v1"),
  kind: z.literal("Deployment"),
  metadata: Meta,
  spec: z.object({
    replicas: z.literal(1),
    strategy: z.object({ type: z.literal("Recreate") }),
    selector: z.object({ matchLabels: z.record(z.string(), z.string()) }),
    template: z.object({
      metadata: z.object({ labels: z.record(z.string(), z.string()) }),
      spec: z.object({
        securityContext: z.object({
          runAsNonRoot: z.literal(true),
          runAsUser: z.number().int().positive(),
        }),
        containers: z.array(Container).length(1),
        volumes: z.array(Volume),
      }),
    }),
  }),
});
const Pvc = z.object({
  apiVersion: z.literal("v1"),
  kind: z.literal("PersistentVolumeClaim"),
  metadata: Meta,
  spec: z.object({
    accessModes: z.array(z.string()).min(1),
    resources: z.object({ requests: z.object({ storage: z.string() }) }),
  }),
});
const ConfigMap = z.object({
  apiVersion: z.literal("v1"),
  kind: z.literal("ConfigMap"),
  metadata: Meta,
  data: z.object({ "config.json": z.string(), "trusted.json": z.string() }),
});
const Secret = z.object({
  apiVersion: z.literal("v1"),
  kind: z.literal("Secret"),
  metadata: Meta,
  stringData: z.object({ "providers.json": z.string(), serve_token: z.string() }),
});
const Service = z.object({
  apiVersion: z.literal("v1"),
  kind: z.literal("Service"),
  metadata: Meta,
  spec: z.object({
    selector: z.record(z.string(), z.string()),
    ports: z.array(z.object({ port: z.number(), targetPort: z.union([z.number(), z.string()]) })),
  }),
});

async function manifests(): Promise<Array<Record<string, unknown>>> {
  const docs: Array<Record<string, unknown>> = [];
  for await (const entry of Deno.readDir(`${DEPLOY}k8s`)) {
    if (!entry.name.endsWith(".yaml")) continue;
    for (const doc of parseAllDocuments(await Deno.readTextFile(`${DEPLOY}k8s/${entry.name}`))) {
      assert.deepEqual(doc.errors, [], entry.name);
      docs.push(doc.toJS());
    }
  }
  return docs;
}

function only<T>(docs: Array<Record<string, unknown>>, kind: string, schema: z.ZodType<T>): T {
  const found = docs.filter((d) => d.kind === kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return schema.parse(found[0]);
}

Deno.test("the Kubernetes manifests parse and hold an agent: one Deployment probed on /health, its worktree claim, config, secret and service, all cross-referenced", async () => {
  const docs = await manifests();
  assert.deepEqual(
    docs.map((d) => d.kind).sort(),
    ["ConfigMap", "Deployment", "PersistentVolumeClaim", "Secret", "Service"],
  );
  const deployment = only(docs, "Deployment", Deployment);
  const pvc = only(docs, "PersistentVolumeClaim", Pvc);
  const configMap = only(docs, "ConfigMap", ConfigMap);
  const secret = only(docs, "Secret", Secret);
  const service = only(docs, "Service", Service);
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;

  // The selector picks the template's pods, and so does the service.
  for (const selector of [deployment.spec.selector.matchLabels, service.spec.selector]) {
    for (const [key, value] of Object.entries(selector)) {
      assert.equal(deployment.spec.template.metadata.labels[key], value, key);
    }
  }
  // Probes and the service reach the port svc serves on (SVC_PORT).
  const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
  assert.deepEqual([env.SVC_PORT, env.SVC_PATH], ["8787", "/work"]);
  const port = container.ports[0];
  assert.equal(port.containerPort, Number(env.SVC_PORT));
  for (const probe of [container.livenessProbe, container.readinessProbe]) {
    assert.equal(probe.httpGet.port, port.containerPort);
  }
  assert.equal(service.spec.ports[0].targetPort, port.name);
  // Bound to 0.0.0.0 (reachable by the probes), so with a token.
  assert.deepEqual(container.args, [
    "--host",
    "0.0.0.0",
    "--token-file",
    "/run/secrets/svc/serve_token",
  ]);

  // Every mount names a volume, every volume exists.
  const volumes = new Map(pod.volumes.map((v) => [v.name, v]));
  const mounts = new Map(container.volumeMounts.map((m) => [m.mountPath, m]));
  for (const mount of container.volumeMounts) assert.ok(volumes.has(mount.name), mount.name);
  assert.equal(
    volumes.get(mounts.get("/work")!.name)?.persistentVolumeClaim?.claimName,
    pvc.metadata.name,
  );
  const config = mounts.get("/work/.svc/config.json")!;
  assert.deepEqual(
    [volumes.get(config.name)?.configMap?.name, config.subPath, config.readOnly],
    [configMap.metadata.name, "config.json", true],
  );
  const providers = mounts.get(`${env.HOME}/.config/svc/providers.json`)!;
  const secretVolume = volumes.get(providers.name)?.secret;
  assert.deepEqual(
    [secretVolume?.secretName, providers.subPath, providers.readOnly, secretVolume?.defaultMode],
    [secret.metadata.name, "providers.json", true, 0o400],
  );
  const token = mounts.get("/run/secrets/svc/serve_token")!;
  assert.deepEqual([volumes.get(token.name)?.secret?.secretName, token.subPath], [
    secret.metadata.name,
    "serve_token",
  ]);
  const trusted = mounts.get(`${env.HOME}/.config/svc/trusted.json`)!;
  assert.deepEqual([volumes.get(trusted.name)?.configMap?.name, trusted.subPath], [
    configMap.metadata.name,
    "trusted.json",
  ]);

  // The ConfigMap holds a valid svc config, trusted at the worktree's path; the secret a
  // providers file in svc's format.
  const parsed = ConfigSchema.safeParse(JSON.parse(configMap.data["config.json"]));
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  assert.deepEqual(JSON.parse(configMap.data["trusted.json"]), [env.SVC_PATH]);
  const stored = JSON.parse(secret.stringData["providers.json"]);
  assert.equal(typeof stored[parsed.data.provider!]?.api_key, "string");
});

Deno.test("the Dockerfile runs svc serve as a non-root user with svc's permission set, SVC_PORT and SVC_PATH, the worktree as a volume and /health as its check", async () => {
  const text = await Deno.readTextFile(`${DEPLOY}Dockerfile`);
  const instructions = text.replace(/\\\n\s*/g, " ").split("\n").filter((l) =>
    l.trim() && !l.startsWith("#")
  );
  const of = (word: string) => instructions.filter((l) => l.startsWith(`${word} `));
  const user = of("USER");
  assert.equal(user.length, 1);
  assert.match(user[0], /^USER [1-9]\d*:[1-9]\d*$/);
  const envLine = of("ENV").join(" ");
  assert.match(envLine, /SVC_PORT=8787/);
  assert.match(envLine, /SVC_PATH=\/work/);
  assert.deepEqual(of("VOLUME"), ['VOLUME ["/work"]']);
  assert.deepEqual(of("EXPOSE"), ["EXPOSE 8787"]);
  const [entry] = of("ENTRYPOINT");
  const argv = JSON.parse(entry.slice("ENTRYPOINT ".length));
  assert.deepEqual(argv, [
    "deno",
    "run",
    ...SVC_PERMISSIONS,
    ...SVC_V8_FLAGS,
    "--quiet",
    "/opt/svc/main.ts",
    "serve",
  ]);
  const commands = instructions.join("\n");
  assert.ok(!/\s-A\b/.test(commands) && !commands.includes("--allow-all"), commands);
  const [check] = of("HEALTHCHECK");
  assert.match(check, /--timeout=2s/);
  assert.match(check, /\/health`\); Deno\.exit\(r\.ok \? 0 : 1\)/);
  const cmd = JSON.parse(of("CMD")[0].slice("CMD ".length));
  assert.deepEqual(cmd, ["--host", "0.0.0.0", "--token-file", "/run/secrets/svc/serve_token"]);
});
