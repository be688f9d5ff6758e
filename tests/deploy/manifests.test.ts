/**
 * What this machine can check of deploy/ without a cluster: the kustomization (deploy/k8s) and
 * its resources parse as YAML and hold the structure an agent needs (checked with zod,
 * cross-references resolved), the agent config it generates is a valid svc config, and the
 * Dockerfile runs `svc serve` non-root with svc's permission set and a /health check. The image
 * and the manifests are built and run for real by `deno task test:deploy`
 * (tests/deploy/containers/).
 */
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { z } from "zod";
import { ConfigSchema } from "../../src/config/schema.ts";
import { IMAGE_ENTRYPOINT } from "./_entrypoint.ts";

const DEPLOY = new URL("../../deploy/", import.meta.url).pathname;

const Meta = z.object({ name: z.string().regex(/^[a-z0-9-]+$/) });
const Probe = z.object({
  httpGet: z.object({ path: z.literal("/health"), port: z.union([z.number(), z.string()]) }),
  timeoutSeconds: z.number().int().positive(),
});
const Mount = z.object({
  name: z.string(),
  mountPath: z.string().startsWith("/"),
  readOnly: z.boolean().optional(),
});
const Container = z.object({
  name: z.string(),
  image: z.string().min(1),
  command: z.array(z.string()),
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
  secret: z.object({
    secretName: z.string(),
    defaultMode: z.number().optional(),
    optional: z.literal(false),
  }).optional(),
  emptyDir: z.object({ medium: z.literal("Memory") }).optional(),
});
const Deployment = z.object({
  apiVersion: z.literal("apps/v1"),
  kind: z.literal("Deployment"),
  metadata: Meta,
  spec: z.object({
    replicas: z.literal(1),
    strategy: z.object({ type: z.literal("Recreate") }),
    template: z.object({
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
    accessModes: z.tuple([z.literal("ReadWriteOnce")]),
    resources: z.object({ requests: z.object({ storage: z.string() }) }),
  }),
});
const Service = z.object({
  apiVersion: z.literal("v1"),
  kind: z.literal("Service"),
  metadata: Meta,
  spec: z.object({
    ports: z.array(z.object({ port: z.number(), targetPort: z.union([z.number(), z.string()]) })),
  }),
});
const Generator = z.object({ name: z.string(), files: z.array(z.string()) });
const Kustomization = z.object({
  kind: z.literal("Kustomization"),
  labels: z.array(z.object({
    pairs: z.record(z.string(), z.string()),
    includeSelectors: z.literal(true),
  })).length(1),
  resources: z.array(z.string()),
  configMapGenerator: z.array(Generator).length(1),
  secretGenerator: z.array(Generator).length(1),
});

async function yamlDocs(path: string): Promise<Array<Record<string, unknown>>> {
  return parseAllDocuments(await Deno.readTextFile(path)).map((doc) => {
    assert.deepEqual(doc.errors, [], path);
    return doc.toJS();
  });
}

function only<T>(docs: Array<Record<string, unknown>>, kind: string, schema: z.ZodType<T>): T {
  const found = docs.filter((d) => d.kind === kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return schema.parse(found[0]);
}

Deno.test("deploy/k8s is a kustomization of one agent: a Deployment probed on /health, its worktree claim, generated config and secret, and a service, all cross-referenced", async () => {
  const kustomization = Kustomization.parse((await yamlDocs(`${DEPLOY}k8s/kustomization.yaml`))[0]);
  const docs: Array<Record<string, unknown>> = [];
  for (const file of kustomization.resources) docs.push(...await yamlDocs(`${DEPLOY}k8s/${file}`));
  assert.deepEqual(
    docs.map((d) => d.kind).sort(),
    ["Deployment", "PersistentVolumeClaim", "Service"],
  );
  const deployment = only(docs, "Deployment", Deployment);
  const pvc = only(docs, "PersistentVolumeClaim", Pvc);
  const service = only(docs, "Service", Service);
  const [configMap] = kustomization.configMapGenerator;
  const [secret] = kustomization.secretGenerator;
  assert.deepEqual(configMap.files, ["config.json"]);
  assert.deepEqual(secret.files, ["secrets/providers.json", "secrets/serve_token"]);
  // The secret files are the operator's to write and are never committed.
  assert.equal(
    await Deno.readTextFile(`${DEPLOY}k8s/secrets/.gitignore`),
    "# The agent secrets kustomization.yaml reads: serve_token and providers.json. Never commit them.\n*\n!.gitignore\n",
  );
  assert.deepEqual(Object.keys(kustomization.labels[0].pairs).sort(), [
    "app.kubernetes.io/instance",
    "app.kubernetes.io/name",
  ]);
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;

  // Probes and the service reach the port svc serves on (SVC_PORT).
  const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
  assert.deepEqual([env.SVC_PORT, env.SVC_PATH, env.HOME], ["8787", "/work", "/home/svc"]);
  const port = container.ports[0];
  assert.equal(port.containerPort, Number(env.SVC_PORT));
  for (const probe of [container.livenessProbe, container.readinessProbe]) {
    assert.equal(probe.httpGet.port, port.containerPort);
  }
  assert.equal(service.spec.ports[0].targetPort, port.name);
  // It copies config and key into a folder of its own, then runs the image's entry point:
  // svc's permission set, bound to 0.0.0.0 (reachable by the probes), so with a token.
  assert.deepEqual(container.command.slice(0, 2), ["sh", "-c"]);
  const script = container.command[2].replace(/\s+/g, " ");
  assert.ok(
    script.startsWith(
      'mkdir -p "$HOME/.config/svc" && chmod 700 "$HOME/.config/svc" && cp /etc/svc/config.json ' +
        '/run/secrets/svc/providers.json "$HOME/.config/svc/" && chmod 600 ' +
        '"$HOME/.config/svc/config.json" "$HOME/.config/svc/providers.json" && ',
    ),
    script,
  );
  assert.ok(
    script.endsWith(
      ["exec", ...IMAGE_ENTRYPOINT].join(" ") + ' "$@"',
    ),
    script,
  );
  assert.deepEqual(container.args, [
    "--host",
    "0.0.0.0",
    "--token-file",
    "/run/secrets/svc/serve_token",
  ]);

  // Every mount names a volume, and each volume is the claim, the generated config or secret, or
  // HOME in memory.
  const volumes = new Map(pod.volumes.map((v) => [v.name, v]));
  const mounts = Object.fromEntries(
    container.volumeMounts.map((m) => [m.mountPath, [volumes.get(m.name), m.readOnly ?? false]]),
  );
  assert.deepEqual(mounts, {
    "/work": [{ name: "worktree", persistentVolumeClaim: { claimName: pvc.metadata.name } }, false],
    "/home/svc": [{ name: "home", emptyDir: { medium: "Memory" } }, false],
    "/etc/svc": [{ name: "config", configMap: { name: configMap.name } }, true],
    "/run/secrets/svc": [{
      name: "secrets",
      secret: { secretName: secret.name, defaultMode: 0o400, optional: false },
    }, true],
  });

  // The generated config is a valid svc config naming a provider.
  const parsed = ConfigSchema.safeParse(
    JSON.parse(await Deno.readTextFile(`${DEPLOY}k8s/config.json`)),
  );
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  assert.equal(parsed.data.provider, "openai");
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
  assert.deepEqual(argv, IMAGE_ENTRYPOINT);
  const commands = instructions.join("\n");
  assert.ok(!/\s-A\b/.test(commands) && !commands.includes("--allow-all"), commands);
  const [check] = of("HEALTHCHECK");
  assert.match(check, /--timeout=2s/);
  assert.match(check, /\/health`\); Deno\.exit\(r\.ok \? 0 : 1\)/);
  const cmd = JSON.parse(of("CMD")[0].slice("CMD ".length));
  assert.deepEqual(cmd, ["--host", "0.0.0.0", "--token-file", "/run/secrets/svc/serve_token"]);
});

Deno.test("the Dockerfile's docker run comment is docs/fleet.md's podman run, which the deploy test runs", async () => {
  const comment = (await Deno.readTextFile(`${DEPLOY}Dockerfile`)).split("\n")
    .filter((l) => l.startsWith("#"))
    .map((l) => l.replace(/^#\s*/, ""));
  const start = comment.findIndex((l) => l.startsWith("docker run"));
  const end = comment.findIndex((l, i) => i > start && !l.endsWith("\\"));
  const fromDockerfile = comment.slice(start, end + 1).join(" ").replace(/\\\s+/g, "");
  const fleet = await Deno.readTextFile(new URL("../../docs/fleet.md", import.meta.url));
  const fromDocs = /\n(podman run [^]*?svc:[\d.]+)\n/.exec(fleet)?.[1].replace(/\\\n\s*/g, "");
  assert.equal(
    fromDockerfile.replace(/\s+/g, " "),
    fromDocs?.replace(/^podman/, "docker").replace(/\s+/g, " "),
  );
  assert.equal(
    fromDockerfile,
    'docker run -d --name svc-agent -p 127.0.0.1:8787:8787 -v "$PWD/agent/work:/work" ' +
      '-v "$PWD/agent/config:/home/svc/.config/svc" ' +
      '-v "$PWD/agent/serve_token:/run/secrets/svc/serve_token:ro" svc:0.27.0',
  );
});
