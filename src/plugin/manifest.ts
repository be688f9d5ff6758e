import { join } from "node:path";
import { z } from "zod";
import semver from "semver";
import { VERSION } from "../version.ts";
import { canonicalPath, isInside } from "../util/paths.ts";

/** Largest manifest.json accepted; anything bigger is refused unread. */
export const MANIFEST_MAX_BYTES = 64 * 1024;

/** Deno permission names a manifest may declare (enforced once plugins run in Workers). */
export const PLUGIN_PERMISSIONS = ["read", "write", "net", "run", "env"] as const;

const range = (what: string) =>
  z.string().max(200).refine((value) => semver.validRange(value) !== null, {
    message: `not a valid ${what} version range`,
  });

/** The manifest.json schema. Unknown keys are ignored so newer manifests stay loadable. */
export const ManifestSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, {
    message:
      "must be 1-64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit",
  }),
  version: z.string().max(100).refine((value) => semver.valid(value) !== null, {
    message: "not a valid semantic version",
  }),
  description: z.string().max(1000).default(""),
  svc_version: range("svc"),
  runtime: z.object({ deno: range("deno").optional() }).default({}),
  entry: z.string().min(1).max(200).default("mod.ts").refine(
    (value) => !/^[a-z][a-z0-9+.-]*:/i.test(value) && !value.includes("\0"),
    { message: "must be a relative file path inside the plugin" },
  ),
  requires: z.array(
    z.string().max(300).regex(/^(npm:|jsr:|https:\/\/)\S+$/, {
      message: "must be an npm:, jsr: or https:// specifier",
    }),
  ).max(100).default([]),
  permissions: z.array(z.enum(PLUGIN_PERMISSIONS)).default([]),
});

/** A validated manifest. */
export type Manifest = z.infer<typeof ManifestSchema>;

/** A manifest read from disk: the validated manifest and the absolute entry path, or an error. */
export type ManifestResult =
  | { ok: true; manifest: Manifest; entryPath: string }
  | { ok: false; error: string };

/**
 * Reads and validates `<dir>/manifest.json`. Never throws: a missing, oversized, non-JSON or
 * invalid manifest, or an entry that resolves outside the plugin folder, becomes `ok: false`.
 */
export async function readManifest(dir: string): Promise<ManifestResult> {
  const path = join(dir, "manifest.json");
  let text: string;
  try {
    text = await readCapped(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { ok: false, error: "Missing manifest.json" };
    return { ok: false, error: (err as Error).message };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `Invalid manifest.json: ${(err as Error).message}` };
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? `"${issue.path.join(".")}" ` : "";
    return { ok: false, error: `Invalid manifest.json: ${where}${issue.message}` };
  }
  const manifest = parsed.data;
  const entryPath = await resolveEntry(dir, manifest.entry);
  if (typeof entryPath !== "string") return { ok: false, error: entryPath.error };
  return { ok: true, manifest, entryPath };
}

/** The reason a manifest's version ranges exclude this svc or Deno, or null when compatible. */
export function incompatibility(
  manifest: Manifest,
  versions: { svc: string; deno: string } = { svc: VERSION, deno: Deno.version.deno },
): string | null {
  if (!semver.satisfies(versions.svc, manifest.svc_version, { includePrerelease: true })) {
    return `Requires svc ${manifest.svc_version}, this is ${versions.svc}`;
  }
  const deno = manifest.runtime.deno;
  if (deno && !semver.satisfies(versions.deno, deno, { includePrerelease: true })) {
    return `Requires deno ${deno}, this is ${versions.deno}`;
  }
  return null;
}

async function readCapped(path: string): Promise<string> {
  const info = await Deno.stat(path);
  if (!info.isFile) throw new Error("manifest.json is not a regular file");
  if (info.size > MANIFEST_MAX_BYTES) {
    throw new Error(`manifest.json is too large (${info.size} bytes, limit ${MANIFEST_MAX_BYTES})`);
  }
  // Read at most the cap even if the file grows between stat and read.
  const file = await Deno.open(path, { read: true });
  try {
    const buffer = new Uint8Array(MANIFEST_MAX_BYTES + 1);
    let used = 0;
    while (used < buffer.length) {
      const n = await file.read(buffer.subarray(used));
      if (n === null) break;
      used += n;
    }
    if (used > MANIFEST_MAX_BYTES) throw new Error("manifest.json is too large");
    return new TextDecoder().decode(buffer.subarray(0, used));
  } finally {
    file.close();
  }
}

async function resolveEntry(dir: string, entry: string): Promise<string | { error: string }> {
  const refused = { error: `Entry ${entry} is outside the plugin folder` };
  let root: string;
  let target: string;
  try {
    root = canonicalPath(dir, ".");
    target = canonicalPath(root, entry);
  } catch (err) {
    return { error: `Entry ${entry} cannot be resolved: ${(err as Error).message}` };
  }
  if (!isInside(root, target) || target === root) return refused;
  try {
    if (!(await Deno.stat(target)).isFile) return { error: `Entry ${entry} is not a file` };
  } catch {
    return { error: `Entry ${entry} not found` };
  }
  return target;
}
