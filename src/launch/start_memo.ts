/**
 * What an installed svc remembers between starts so that a turn can begin without loading zod:
 * the validated form of config files, catalog entries and plugin manifests it has checked
 * before, and the JSON schemas of tools whose zod schemas are built on first use. Loading zod
 * and building svc's schemas cost about a fifth of a one-word `svc run` (docs/performance.md).
 *
 * Every value is a pure function of its key under one build: a key is the exact input (the
 * JSON text that was validated, a tool's schema builder), and the file belongs to one build
 * (`BUILD_ID`, a hash of the bundle), so a new build starts empty. From the source tree, where
 * code changes without a new build id, nothing is remembered. The file lives in svc's own folder
 * (`~/.config/svc/start_cache/<build>.json`), where a repository cannot write; an unreadable or
 * damaged file is ignored and replaced, and a failed write costs the next start its speed only.
 */
import { BUILD_ID } from "./build_id.ts";
import { writeFileAtomic } from "../util/atomic.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { readTextCapped } from "../util/fs.ts";
import { join } from "../util/posix_path.ts";

/** Entries kept per kind; the oldest goes first (a config edited often does not grow the file). */
export const MEMO_ENTRIES_PER_KIND = 32;
/** A larger file is ignored (and replaced). */
const MEMO_MAX_BYTES = 4 << 20;

type Kinds = Record<string, Record<string, unknown>>;

/** One build's remembered values, read once per process. */
export class StartMemo {
  readonly #file: string | null;
  readonly #build: string;
  #kinds: Kinds;
  /** Writes run one after another, each with everything remembered so far. */
  #writing: Promise<void> = Promise.resolve();

  private constructor(file: string | null, build: string, kinds: Kinds) {
    this.#file = file;
    this.#build = build;
    this.#kinds = kinds;
  }

  /**
   * The memo of `build` in `dir`; a memo that remembers nothing (and writes nothing) when `build`
   * is null. Never throws.
   */
  static async open(dir: string, build: string | null): Promise<StartMemo> {
    if (build === null) return new StartMemo(null, "", {});
    const file = join(dir, `${build}.json`);
    let kinds: Kinds = {};
    try {
      const stored = JSON.parse((await readTextCapped(file, MEMO_MAX_BYTES)).text);
      if (stored?.build === build && isKinds(stored.kinds)) kinds = stored.kinds;
    } catch {
      // missing, unreadable or damaged: start empty
    }
    return new StartMemo(file, build, kinds);
  }

  /** Whether values are remembered at all (an installed build). */
  get enabled(): boolean {
    return this.#file !== null;
  }

  /** The value remembered for `key`, or undefined. */
  get(kind: string, key: string): unknown {
    const entries = this.#kinds[kind];
    return entries && Object.hasOwn(entries, key) ? entries[key] : undefined;
  }

  /** Remembers values and writes the file; does nothing when disabled. Never throws. */
  async remember(kind: string, values: Iterable<[string, unknown]>): Promise<void> {
    if (this.#file === null) return;
    const entries = { ...this.#kinds[kind] };
    let changed = false;
    for (const [key, value] of values) {
      if (value === undefined) continue;
      delete entries[key]; // re-inserted last: the newest stays longest
      entries[key] = value;
      changed = true;
    }
    if (!changed) return;
    const keys = Object.keys(entries);
    for (const key of keys.slice(0, Math.max(0, keys.length - MEMO_ENTRIES_PER_KIND))) {
      delete entries[key];
    }
    this.#kinds = { ...this.#kinds, [kind]: entries };
    const file = this.#file;
    this.#writing = this.#writing.then(async () => {
      try {
        await Deno.mkdir(join(file, ".."), { recursive: true, mode: 0o700 });
        // Owner-only: a config may hold an MCP server's headers or environment.
        const text = JSON.stringify({ build: this.#build, kinds: this.#kinds });
        await writeFileAtomic(file, text, { syncDir: false, mode: 0o600 });
      } catch {
        // a read-only HOME: nothing is remembered
      }
    });
    await this.#writing;
  }
}

function isKinds(value: unknown): value is Kinds {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value) &&
    Object.values(value as object).every((v) => v && typeof v === "object" && !Array.isArray(v));
}

let shared: { dir: string; memo: Promise<StartMemo> } | undefined;
let opened: { dir: string; memo: StartMemo } | undefined;

/** The process's memo of this build, in `~/.config/svc/start_cache/` (HOME is read each time). */
export function startMemo(): Promise<StartMemo> {
  const dir = memoDir();
  if (dir === null) return StartMemo.open("", null); // no usable HOME: config loading says why
  if (shared?.dir !== dir) {
    const memo = StartMemo.open(dir, BUILD_ID).then((memo) => {
      opened = { dir, memo };
      return memo;
    });
    shared = { dir, memo };
  }
  return shared.memo;
}

/** The process's memo once `startMemo()` has resolved, for synchronous readers; else undefined. */
export function openedStartMemo(): StartMemo | undefined {
  return opened && opened.dir === memoDir() ? opened.memo : undefined;
}

function memoDir(): string | null {
  try {
    return join(globalConfigDir(), "start_cache");
  } catch {
    return null;
  }
}

/**
 * `compute(input)` for a pure validation, remembered under the exact JSON of `input`. Only
 * values `keep` accepts are remembered (a failed check is computed again, with its message).
 */
export async function memoized<T>(
  kind: string,
  { input, compute, keep = () => true }: {
    input: unknown;
    compute: () => Promise<T> | T;
    keep?: (value: T) => boolean;
  },
): Promise<T> {
  const memo = await startMemo();
  if (!memo.enabled) return await compute();
  const key = JSON.stringify(input);
  const known = memo.get(kind, key);
  if (known !== undefined) return structuredClone(known) as T;
  const value = await compute();
  if (keep(value)) await memo.remember(kind, [[key, value]]);
  return value;
}
