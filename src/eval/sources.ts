/**
 * Where fixtures come from: the `register_fixtures` plugin hook, `~/.config/svc/eval/*.json` and
 * `<worktree>/.svc/eval/*.json`, merged by id with the later source winning (local over global
 * over plugin). A file holds one fixture object or a list of them.
 */
import { join } from "../util/posix_path.ts";
import { readTextCapped, UnreadableFileError } from "../util/fs.ts";
import { type Fixture, FixtureError, parseFixture } from "./fixture.ts";

/** Where a fixture was defined. */
export type FixtureOrigin = "plugin" | "global" | "local";

/** A validated fixture and where it came from. */
export interface LoadedFixture {
  fixture: Fixture;
  origin: FixtureOrigin;
  /** The file (or `plugin fixture "<id>"`) it was read from. */
  where: string;
  /** The origins of the definitions this one replaced, earliest first. */
  overrides: FixtureOrigin[];
}

/** A fixture file is small; a bigger one (or a FIFO) is refused unread. */
export const FIXTURE_FILE_MAX_BYTES = 16 << 20;

/** The roots to read fixtures from. */
export interface FixtureRoots {
  /** What the plugins registered (`register_fixtures`). */
  plugins: readonly unknown[];
  /** `~/.config/svc`; the files are `<globalDir>/eval/*.json`. */
  globalDir: string;
  /** The worktree; the files are `<worktree>/.svc/eval/*.json`. */
  worktree: string;
}

/**
 * Every fixture, validated and merged by id, sorted by id. Throws a FixtureError naming the file
 * and field of the first invalid fixture, or both files when one root defines an id twice.
 */
export async function loadFixtures(roots: FixtureRoots): Promise<LoadedFixture[]> {
  const merged = new Map<string, LoadedFixture>();
  const add = (entry: Omit<LoadedFixture, "overrides">) => {
    const before = merged.get(entry.fixture.id);
    merged.set(entry.fixture.id, {
      ...entry,
      overrides: before ? [...before.overrides, before.origin] : [],
    });
  };
  const fromPlugins = new Map<string, Fixture>();
  for (const raw of roots.plugins) {
    const id = (raw as { id?: unknown })?.id;
    const fixture = parseFixture(raw, `plugin fixture ${JSON.stringify(id)}`);
    fromPlugins.set(fixture.id, fixture);
  }
  for (const fixture of fromPlugins.values()) {
    add({ fixture, origin: "plugin", where: `plugin fixture "${fixture.id}"` });
  }
  for (
    const [origin, dir] of [
      ["global", join(roots.globalDir, "eval")],
      ["local", join(roots.worktree, ".svc", "eval")],
    ] as const
  ) {
    const seen = new Map<string, string>();
    for (const { fixture, where } of await readFixtureDir(dir)) {
      const other = seen.get(fixture.id);
      if (other) {
        throw new FixtureError(
          `Fixture id "${fixture.id}" is defined twice in ${dir}: ${other} and ${where}; ` +
            "rename or remove one",
        );
      }
      seen.set(fixture.id, where);
      add({ fixture, origin, where });
    }
  }
  return [...merged.values()].sort((a, b) => (a.fixture.id < b.fixture.id ? -1 : 1));
}

/** The fixtures of every `*.json` file in `dir` (sorted by name); none when it is missing. */
async function readFixtureDir(dir: string): Promise<Array<{ fixture: Fixture; where: string }>> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name.endsWith(".json") && !entry.name.startsWith(".")) names.push(entry.name);
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return [];
    throw new FixtureError(`Cannot read the fixture folder ${dir}: ${(err as Error).message}`);
  }
  const out: Array<{ fixture: Fixture; where: string }> = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    const value = await readJsonFile(path);
    if (Array.isArray(value)) {
      value.forEach((raw, i) =>
        out.push({ fixture: parseFixture(raw, `${path} [${i}]`), where: path })
      );
    } else out.push({ fixture: parseFixture(value, path), where: path });
  }
  return out;
}

async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = (await readTextCapped(path, FIXTURE_FILE_MAX_BYTES)).text;
  } catch (err) {
    if (err instanceof UnreadableFileError) {
      throw new FixtureError(`Cannot read the fixture file ${path}: it is ${err.message}`);
    }
    throw new FixtureError(`Cannot read the fixture file ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new FixtureError(`${path} is not valid JSON (${(err as Error).message})`);
  }
}
