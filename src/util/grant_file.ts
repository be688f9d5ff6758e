/**
 * A person's grants in their own config folder (job approvals, MCP server approvals): one JSON
 * file keyed by worktree, then by name, read and written under the private-file rule (0600, never
 * from a file or folder another user could write), changed under the file's lock.
 */
import { readJson, updateJson } from "./json_file.ts";

/** Grants by worktree, then by name. */
export type GrantFile<G> = Record<string, Record<string, G>>;

function asGrantFile<G>(value: unknown): GrantFile<G> {
  return value && typeof value === "object" && !Array.isArray(value) ? value as GrantFile<G> : {};
}

/** Every grant in `path` (a missing or corrupt file grants nothing). */
export async function readGrantFile<G>(path: string): Promise<GrantFile<G>> {
  const { value } = await readJson(path, { private: true });
  return asGrantFile<G>(value);
}

/**
 * Changes the grants of `worktree` in `path` with `fn`, under the file's lock; a worktree left
 * with none is removed from the file.
 */
export async function changeGrants<G>(
  path: string,
  { worktree, fn }: { worktree: string; fn: (grants: Record<string, G>) => void },
): Promise<void> {
  await updateJson(path, (current) => {
    const file = asGrantFile<G>(current);
    const grants = { ...(file[worktree] ?? {}) };
    fn(grants);
    if (Object.keys(grants).length) file[worktree] = grants;
    else delete file[worktree];
    return file;
  }, { mode: 0o600, private: true });
}
