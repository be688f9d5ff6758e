/** Helpers shared by the svc-core-fs tools: display paths, noise and binary rules, sizes. */
import { isAbsolute, relative } from "../../../src/plugin/api.ts";

/** Directory names that glob, grep and list_dir trees never descend into. */
export const NOISE_DIRS: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  ".svc",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".next",
  ".cache",
  "dist",
  "build",
  "target",
  "coverage",
]);

/** Files larger than this are skipped by grep (bytes; 1 MiB, as ripgrep's `--max-filesize 1M`). */
export const GREP_MAX_FILE_BYTES = 1024 * 1024;

/** `path` relative to the worktree when inside it (posix separators), else absolute. */
export function displayPath(worktree: string, path: string): string {
  const rel = relative(worktree, path);
  if (rel === "") return ".";
  if (rel === ".." || rel.startsWith("../") || isAbsolute(rel)) return path;
  return rel;
}

/** True when the bytes look binary: a NUL byte within the first 8 KiB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8192);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Human-readable size: `512 B`, `1.5 KB`, `3.2 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
