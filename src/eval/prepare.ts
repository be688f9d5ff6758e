/**
 * What an eval run needs before its first trial, from a loaded runtime: the worktree's fixtures
 * and the selected ones, the model targets, the trial setup and the report folder.
 */
import type { Runtime } from "../runtime/runtime.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { resolve } from "../util/posix_path.ts";
import { FixtureError } from "./fixture.ts";
import { type LoadedFixture, loadFixtures } from "./sources.ts";
import { evalConfig, type EvalSetup, type EvalTarget } from "./trial.ts";

/** The merged fixtures of the runtime's worktree (plugin < global < local). */
export function worktreeFixtures(runtime: Runtime): Promise<LoadedFixture[]> {
  return loadFixtures({
    plugins: runtime.plugins.fixtures,
    globalDir: globalConfigDir(),
    worktree: runtime.worktree,
  });
}

/** The fixtures as `svc eval list --output json` prints them: file sizes stand in for contents. */
export function fixtureListing(fixtures: readonly LoadedFixture[]): object[] {
  // File contents can be large (page-large-file provisions 300 KB).
  return fixtures.map(({ fixture, origin, where, overrides }) => ({
    ...fixture,
    files: Object.fromEntries(
      Object.entries(fixture.files).map(([path, text]) => [path, { chars: text.length }]),
    ),
    origin,
    source: where,
    overrides,
  }));
}

/**
 * The fixtures named by `ids` (all when none), in the order named, or a message naming the
 * unknown ones; throws a FixtureError when the worktree has none at all.
 */
export async function selectFixtures(
  runtime: Runtime,
  ids: readonly string[],
): Promise<LoadedFixture[] | string> {
  const fixtures = await worktreeFixtures(runtime);
  if (fixtures.length === 0) {
    throw new FixtureError(
      "No fixtures found: the svc-core-eval plugin is not loaded and ~/.config/svc/eval and " +
        ".svc/eval hold none",
    );
  }
  const known = new Map(fixtures.map((f) => [f.fixture.id, f]));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) {
    return `unknown fixture ${unknown.map((id) => `"${id}"`).join(", ")}; available: ${
      [...known.keys()].join(", ")
    }`;
  }
  return ids.length ? [...new Set(ids)].map((id) => known.get(id)!) : fixtures;
}

/** The models a run compares (each approved as a flag), or the runtime's own. */
export async function evalTargets(runtime: Runtime, compare?: string[]): Promise<EvalTarget[]> {
  if (!compare) return [{ connection: await runtime.connect() }];
  return await Promise.all(
    compare.map(async (model) => ({
      connection: await runtime.connect({ model, modelFrom: "flag" }),
    })),
  );
}

/** The trial setup of a runtime: its plugins' tools and the eval config over its config. */
export function evalSetup(runtime: Runtime): EvalSetup {
  return {
    tools: runtime.plugins.tools,
    owners: runtime.plugins.owners,
    config: evalConfig(runtime.config),
  };
}

/** Why `dir` cannot take a report (one run per folder, so transcripts never mix), if it cannot. */
export async function reportFolderProblem(dir: string): Promise<string | undefined> {
  try {
    if (!(await Deno.stat(dir)).isDirectory) return "is not a folder";
    for await (const _ of Deno.readDir(dir)) return "is not empty";
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) return `cannot be read (${(err as Error).message})`;
  }
  return undefined;
}

/** Creates the report folder: `dir`, or a new temporary one named by the time; throws saying so. */
export async function makeReportFolder(dir?: string, now = new Date()): Promise<string> {
  try {
    const path = dir ? resolve(dir) : await Deno.makeTempDir({ prefix: `svc-eval-${stamp(now)}-` });
    await Deno.mkdir(path, { recursive: true });
    return path;
  } catch (err) {
    throw new Error(`Cannot create the report folder: ${(err as Error).message}`);
  }
}

function stamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
}
