import { join } from "../util/posix_path.ts";
import { VERSION } from "../version.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import { readTextCapped, UnreadableFileError } from "../util/fs.ts";
import { manifestMarker } from "./manifest_memo.ts";
import type { Manifest } from "./manifest_schema.ts";
import { memoized } from "../launch/start_memo.ts";

export type { Manifest } from "./manifest_schema.ts";

/** Largest manifest.json accepted; anything bigger is refused unread. */
export const MANIFEST_MAX_BYTES = 64 * 1024;

type Semver = typeof import("semver");
let semverModule: Semver | undefined;

/**
 * semver is CommonJS and costs ~20 ms to load, so it is imported only when a manifest that did
 * not ship with svc has to be checked; bundled manifests are checked by the test suite instead.
 */
async function loadSemver(): Promise<Semver> {
  semverModule ??= ((await import("semver")) as { default: Semver }).default;
  return semverModule;
}

/** A manifest read from disk: the validated manifest and the absolute entry path, or an error. */
export type ManifestResult =
  | {
    ok: true;
    manifest: Manifest;
    entryPath: string;
    /** With `memoDir`: already known valid and compatible (no version check needed). */
    compatible?: true;
    /** With `memoDir`: the marker to remember once the version ranges are found compatible. */
    marker?: string;
  }
  | { ok: false; error: string };

/**
 * Reads and validates `<dir>/manifest.json`. Never throws: a missing, oversized, non-JSON or
 * invalid manifest, or an entry that resolves outside the plugin folder, becomes `ok: false`.
 * With `memoDir`, a manifest remembered there as compatible skips the version checks.
 */
export async function readManifest(
  dir: string,
  options: { trusted?: boolean; memoDir?: string } = {},
): Promise<ManifestResult> {
  const path = join(dir, "manifest.json");
  let text: string;
  try {
    text = (await readTextCapped(path, MANIFEST_MAX_BYTES)).text;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { ok: false, error: "Missing manifest.json" };
    if (err instanceof UnreadableFileError) {
      return { ok: false, error: `manifest.json is ${err.message}` };
    }
    return { ok: false, error: (err as Error).message };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `Invalid manifest.json: ${(err as Error).message}` };
  }
  // A manifest found valid before is remembered by an installed svc (start_memo.ts): the schema
  // and zod load only for a new one.
  const parsed = await memoized("manifest", {
    input: raw,
    compute: async () => (await import("./manifest_schema.ts")).checkManifest(raw),
    keep: (checked) => checked.ok,
  });
  if (!parsed.ok) return { ok: false, error: `Invalid manifest.json: ${parsed.error}` };
  const manifest = parsed.manifest;
  const memo = !options.trusted && options.memoDir !== undefined
    ? await manifestMarker(options.memoDir, text)
    : undefined;
  if (!options.trusted && !memo?.known) {
    const problem = versionFieldProblem(manifest, await loadSemver());
    if (problem) return { ok: false, error: `Invalid manifest.json: ${problem}` };
  }
  const entryPath = resolveEntry(dir, manifest.entry);
  if (typeof entryPath !== "string") return { ok: false, error: entryPath.error };
  if (!memo) return { ok: true, manifest, entryPath };
  return memo.known
    ? { ok: true, manifest, entryPath, compatible: true }
    : { ok: true, manifest, entryPath, marker: memo.path };
}

function versionFieldProblem(manifest: Manifest, semver: Semver): string | null {
  if (semver.valid(manifest.version) === null) return '"version" not a valid semantic version';
  if (semver.validRange(manifest.svc_version) === null) {
    return '"svc_version" not a valid svc version range';
  }
  const deno = manifest.runtime.deno;
  if (deno !== undefined && semver.validRange(deno) === null) {
    return '"runtime.deno" not a valid deno version range';
  }
  return null;
}

/** The reason a manifest's version ranges exclude this svc or Deno, or null when compatible. */
export async function incompatibility(
  manifest: Manifest,
  versions: { svc: string; deno: string } = { svc: VERSION, deno: Deno.version.deno },
): Promise<string | null> {
  const semver = await loadSemver();
  if (!semver.satisfies(versions.svc, manifest.svc_version, { includePrerelease: true })) {
    return `Requires svc ${manifest.svc_version}, this is ${versions.svc}`;
  }
  const deno = manifest.runtime.deno;
  if (deno && !semver.satisfies(versions.deno, deno, { includePrerelease: true })) {
    return `Requires deno ${deno}, this is ${versions.deno}`;
  }
  return null;
}

function resolveEntry(dir: string, entry: string): string | { error: string } {
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
    if (!Deno.statSync(target).isFile) return { error: `Entry ${entry} is not a file` };
  } catch {
    return { error: `Entry ${entry} not found` };
  }
  return target;
}
