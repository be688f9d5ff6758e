/**
 * Podman for the deploy tests (`deno task test:deploy`), isolated from the host's own: every
 * podman call gets a containers.conf (the runc runtime, the cgroupfs manager and no default
 * ulimits, the settings this kind of host needs) and a storage.conf whose store is the test's own
 * folder (`$XDG_CACHE_HOME/svc-deploy-test`, default `~/.cache`), with its run state under
 * `/run/svc-deploy-test/`. The host's podman config and images are never read or changed.
 *
 * The store keeps images between runs as a cache: the local base image (tagged by a content key,
 * base_image.ts) and the layers of the svc image (podman's build cache, keyed by content).
 * Containers, pods, volumes and secrets are the tests' to remove, and they do.
 */
import { join } from "node:path";

const CACHE = join(
  Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") || "/root", ".cache"),
  "svc-deploy-test",
);
/** Podman's run state for this store (one per store: two stores must not share it). */
const RUN = join("/run/svc-deploy-test", CACHE.replaceAll("/", "_"));

/** The folder the tests own: the podman store and the base image's build folder. */
export const CACHE_DIR = CACHE;

let env: Record<string, string> | undefined;

/** CONTAINERS_CONF and CONTAINERS_STORAGE_CONF for every podman and buildah call. */
function podmanEnv(): Record<string, string> {
  if (env) return env;
  Deno.mkdirSync(join(CACHE, "storage"), { recursive: true });
  Deno.mkdirSync(join(RUN, "tmp"), { recursive: true });
  const containers = join(RUN, "containers.conf");
  Deno.writeTextFileSync(
    containers,
    [
      "[containers]",
      "default_ulimits = []",
      "[engine]",
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `tmp_dir = "${join(RUN, "tmp")}"`,
      "",
    ].join("\n"),
  );
  const storage = join(RUN, "storage.conf");
  Deno.writeTextFileSync(
    storage,
    [
      "[storage]",
      'driver = "overlay"',
      `graphroot = "${join(CACHE, "storage")}"`,
      `runroot = "${join(RUN, "storage")}"`,
      "",
    ].join("\n"),
  );
  env = { CONTAINERS_CONF: containers, CONTAINERS_STORAGE_CONF: storage };
  return env;
}

/** A finished podman call. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `podman args` (or another program with the same environment); never throws on exit code. */
export async function podmanRaw(
  args: string[],
  options: { program?: string; stdin?: Uint8Array } = {},
): Promise<Ran> {
  const child = new Deno.Command(options.program ?? "podman", {
    args,
    env: podmanEnv(),
    stdin: options.stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(options.stdin);
    await writer.close();
  }
  const out = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Runs `podman args` and returns its stdout trimmed; throws with its stderr when it fails. */
export async function podman(
  args: string[],
  options: { program?: string; stdin?: Uint8Array } = {},
): Promise<string> {
  const ran = await podmanRaw(args, options);
  if (ran.code !== 0) {
    throw new Error(
      `${options.program ?? "podman"} ${args.join(" ")} exited ${ran.code}:\n${ran.stderr}`,
    );
  }
  return ran.stdout.trim();
}

/**
 * Why the deploy tests cannot run here, or undefined when they can: they need root (debootstrap,
 * rootful podman), podman, debootstrap and a podman that runs a container.
 */
export async function whyNotRunnable(): Promise<string | undefined> {
  if (Deno.build.os !== "linux") return "containers run on Linux only";
  if (Deno.uid() !== 0) return "they need root (debootstrap and rootful podman)";
  for (const program of ["podman", "debootstrap"]) {
    try {
      await new Deno.Command(program, { args: ["--version"], stdout: "null", stderr: "null" })
        .output();
    } catch {
      return `${program} is missing (apt-get install -y podman buildah debootstrap)`;
    }
  }
  const info = await podmanRaw(["info", "--format", "{{.Host.OCIRuntime.Name}}"]);
  if (info.code !== 0) return `podman info fails: ${info.stderr.trim()}`;
  return undefined;
}

/** Removes what `names` name (containers, pods, volumes, secrets) from the store, ignoring absence. */
export async function removeAll(
  names: { pods?: string[]; containers?: string[]; volumes?: string[]; secrets?: string[] },
): Promise<void> {
  for (const pod of names.pods ?? []) await podmanRaw(["pod", "rm", "-f", "-t", "0", pod]);
  for (const ctr of names.containers ?? []) await podmanRaw(["rm", "-f", "-v", "-t", "0", ctr]);
  for (const volume of names.volumes ?? []) await podmanRaw(["volume", "rm", "-f", volume]);
  for (const secret of names.secrets ?? []) await podmanRaw(["secret", "rm", secret]);
}

/** What the store holds besides images: every container, pod, volume and secret, by name. */
export async function leftovers(): Promise<string[]> {
  const list = async (args: string[]) =>
    (await podman(args)).split("\n").map((l) => l.trim()).filter(Boolean);
  return [
    ...(await list(["ps", "-a", "--format", "container {{.Names}}"])),
    ...(await list(["pod", "ls", "--format", "pod {{.Name}}"])),
    ...(await list(["volume", "ls", "--format", "volume {{.Name}}"])),
    ...(await list(["secret", "ls", "--format", "secret {{.Name}}"])),
  ];
}

/** GET `url` until it answers 200 (returns the milliseconds since `since`) or `ms` pass. */
export async function waitHealthy(url: string, since: number, ms = 20_000): Promise<number> {
  let last = "no answer";
  while (performance.now() - since < ms) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      const body = await res.text();
      if (res.status === 200) return performance.now() - since;
      last = `${res.status} ${body}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${url} was not healthy within ${ms} ms (last: ${last})`);
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
