/**
 * The images of the deploy tests, built without a registry. The base is a minimal Debian root
 * made with debootstrap from the machine's apt mirror, with this machine's CA bundle (so deno
 * trusts the same TLS authorities the host does) and the Deno binary of the npm package (the one
 * running these tests); `deploy/Dockerfile` is then built on it with `--build-arg BASE=...`.
 *
 * The base is tagged `svc-deploy-base:<key>`, the key a digest of everything it is made from
 * (this recipe, the CA bundle, the deno binary), so a rerun finds it in the test's store and
 * skips debootstrap; a change to any input makes a new key and a new base. The mirror's packages
 * are read at the first build only: the cached base is that snapshot.
 */
import { join } from "node:path";
import { CACHE_DIR, podman, podmanRaw } from "./_podman.ts";

const SUITE = "bookworm";
const MIRROR = "http://deb.debian.org/debian";
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
/** The recipe, part of the key: change it and the base is rebuilt. */
const RECIPE = [
  `debootstrap --variant=minbase --include=ca-certificates ${SUITE} <root> ${MIRROR}`,
  "rm -rf <root>/var/cache/apt/* <root>/var/lib/apt/lists/*",
  `cp ${CA_BUNDLE} <root>${CA_BUNDLE}`,
  "cp <deno> <root>/usr/local/bin/deno",
  "podman import --change ENV DENO_TLS_CA_STORE=system",
].join("\n");

/** The svc image's tag: the one deploy/k8s names. */
export const SVC_IMAGE = "svc:0.27.0";

async function sha256(parts: Array<string | Uint8Array>): Promise<string> {
  const bytes = parts.map((p) => typeof p === "string" ? new TextEncoder().encode(p) : p);
  const all = new Uint8Array(bytes.reduce((n, b) => n + b.length + 1, 0));
  let at = 0;
  for (const b of bytes) {
    all.set(b, at);
    at += b.length + 1;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return [...digest.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The local base image (built when its key is not in the store); returns its reference. */
export async function baseImage(): Promise<string> {
  const deno = Deno.execPath();
  const key = await sha256([
    RECIPE,
    await Deno.readFile(CA_BUNDLE),
    await Deno.readFile(deno),
  ]);
  const ref = `localhost/svc-deploy-base:${key}`;
  if ((await podmanRaw(["image", "exists", ref])).code === 0) return ref;
  const root = join(CACHE_DIR, `base-${key}`);
  await Deno.remove(root, { recursive: true }).catch(() => {});
  try {
    await podman(
      ["--variant=minbase", "--include=ca-certificates", SUITE, root, MIRROR],
      { program: "debootstrap" },
    );
    for (const dir of ["var/cache/apt", "var/lib/apt/lists"]) {
      for await (const entry of Deno.readDir(join(root, dir))) {
        await Deno.remove(join(root, dir, entry.name), { recursive: true });
      }
    }
    await Deno.copyFile(CA_BUNDLE, join(root, CA_BUNDLE));
    await Deno.copyFile(deno, join(root, "usr/local/bin/deno"));
    await Deno.chmod(join(root, "usr/local/bin/deno"), 0o755);
    const tar = await new Deno.Command("tar", { args: ["-C", root, "-c", "."], stdout: "piped" })
      .output();
    if (!tar.success) throw new Error(`tar of ${root} failed`);
    await podman(["import", "--change", "ENV DENO_TLS_CA_STORE=system", "-", ref], {
      stdin: tar.stdout,
    });
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  return ref;
}

/**
 * `podman build --format docker --build-arg BASE=<base> -f deploy/Dockerfile -t svc:0.27.0 .`
 * from the repository root (docker format: the OCI format has no HEALTHCHECK). Returns the
 * base's reference.
 */
export async function buildSvcImage(root: string): Promise<string> {
  const base = await baseImage();
  await podman([
    "build",
    "--format",
    "docker",
    "--layers",
    "--build-arg",
    `BASE=${base}`,
    "-f",
    join(root, "deploy/Dockerfile"),
    "-t",
    SVC_IMAGE,
    root,
  ]);
  // The image the tag moved from (an earlier build), now nameless: the store keeps only the cache.
  await podman(["image", "prune", "-f"]);
  return base;
}

/** An image's size in bytes. */
export async function imageSize(ref: string): Promise<number> {
  return Number(await podman(["image", "inspect", "--format", "{{.Size}}", ref]));
}
