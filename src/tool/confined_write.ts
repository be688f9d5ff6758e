/**
 * The confined write tools use (file_write, file_edit): nothing outside the root folder is created
 * or changed, even when a symbolic link on the way is swapped while the write runs. Three ways, in
 * order of preference: through /proc/self/fd (Linux, a process holding every permission: the
 * fastest), in a bubblewrap namespace where only the root is writable (src/sandbox/
 * confined_write.ts: svc's own permission set, a few milliseconds a write), else by checking the
 * folder's path just before writing, which a concurrent swap can race (docs/security.md).
 */
import {
  type AtomicWriteOptions,
  descriptorPathsAllowed,
  writeFileAtomic,
} from "../util/atomic.ts";

/** How a confined write keeps inside its root: see the module comment. */
export type ConfinedWriteMethod = "descriptor" | "bubblewrap" | "path";

/** The way this process's confined writes keep inside their root (bubblewrap probed once). */
export async function confinedWriteMethod(): Promise<ConfinedWriteMethod> {
  if (descriptorPathsAllowed()) return "descriptor";
  const { sandboxKind } = await import("../sandbox/probe.ts");
  const kind = await sandboxKind();
  return kind.ok && kind.kind === "bubblewrap" ? "bubblewrap" : "path";
}

/** writeFileConfined's options: writeFileAtomic's, and bubblewrap forced (tests). */
export interface ConfinedWriteOptions extends AtomicWriteOptions {
  /** Write in bubblewrap even where /proc/self/fd could hold the write; throws if it cannot run. */
  via?: "bubblewrap";
  /** Awaited with `path` before anything is written (`ToolContext.beforeWrite`: the checkpoint). */
  before?: (path: string) => Promise<void>;
}

/**
 * writeFileAtomic, with `confineTo` kept even against a link swapped during the write wherever
 * /proc/self/fd or bubblewrap can hold it (see the module comment); without `confineTo` it is
 * writeFileAtomic itself. Throws OutsideRootError for a folder leading outside the root.
 */
export async function writeFileConfined(
  path: string,
  data: string | Uint8Array,
  options: ConfinedWriteOptions = {},
): Promise<void> {
  const { via, before, ...atomic } = options;
  if (before) await before(path);
  if (atomic.confineTo === undefined) return await writeFileAtomic(path, data, atomic);
  const method = via ?? await confinedWriteMethod();
  // writeFileAtomic goes through /proc/self/fd whenever it can, else checks the path.
  if (method !== "bubblewrap") return await writeFileAtomic(path, data, atomic);
  const { sandboxKind } = await import("../sandbox/probe.ts");
  const kind = await sandboxKind();
  if (!kind.ok || kind.kind !== "bubblewrap") {
    throw new Error(`bubblewrap cannot run here: ${kind.ok ? kind.kind : kind.reason}`);
  }
  const { writeInSandbox } = await import("../sandbox/confined_write.ts");
  await writeInSandbox(path, data, { ...atomic, root: atomic.confineTo, program: kind.program });
}
