import { basename, join, resolve } from "../util/posix_path.ts";
import { writeFileAtomic } from "../util/atomic.ts";

/** How a plugin was installed: a git clone or a copy of a local folder. */
export type SourceType = "git" | "path";

/** Contents of `<plugin>/.svc-source.json`, written by install and update. */
export interface SourceRecord {
  source: string;
  type: SourceType;
  installed_at: string;
  commit?: string;
}

/** Name of the source record file inside an installed plugin. */
export const SOURCE_FILE = ".svc-source.json";

/** Entries never copied from a local source. */
const SKIPPED = new Set([".git", ".svc", "node_modules", SOURCE_FILE]);

/**
 * Classifies an install source: URLs (`https:`, `ssh:`, `git:`, `file:`), scp-style `user@host:path`
 * and folders named `*.git` are git; anything else is a local folder to copy.
 */
export function sourceType(source: string): SourceType {
  if (/^(https?|ssh|git|file):\/\//i.test(source)) return "git";
  if (/^[\w.-]+@[\w.-]+:/.test(source)) return "git";
  return source.replace(/[\\/]+$/, "").endsWith(".git") ? "git" : "path";
}

/** The recorded source of an installed plugin, or null when there is none or it is unreadable. */
export async function readSourceRecord(dir: string): Promise<SourceRecord | null> {
  try {
    const raw = JSON.parse(await Deno.readTextFile(join(dir, SOURCE_FILE)));
    if (typeof raw?.source !== "string" || !["git", "path"].includes(raw?.type)) return null;
    return raw as SourceRecord;
  } catch {
    return null;
  }
}

/** Writes the source record into a plugin folder. */
export async function writeSourceRecord(dir: string, record: SourceRecord): Promise<void> {
  await writeFileAtomic(join(dir, SOURCE_FILE), JSON.stringify(record, null, 2) + "\n");
}

/**
 * Fetches `source` into the folder `into` (which must not exist yet) and returns its record:
 * `git clone --depth 1` for git sources (the `.git` folder is dropped, the commit recorded), a
 * recursive copy for local folders.
 */
export async function fetchSource(source: string, into: string): Promise<SourceRecord> {
  const type = sourceType(source);
  const installed_at = new Date().toISOString();
  if (type === "path") {
    const from = resolve(source);
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(from);
    } catch {
      throw new Error(`Cannot install from ${source}: no such folder`);
    }
    if (!info.isDirectory) throw new Error(`Cannot install from ${source}: not a folder`);
    await copyDir(from, into, into);
    return { source: from, type, installed_at };
  }
  // A `*.git` folder given as a path is cloned from its absolute location.
  const url = source.includes("://") || /^[\w.-]+@/.test(source) ? source : resolve(source);
  await git(["clone", "--depth", "1", "--quiet", "--", url, into], `Cannot clone ${source}`);
  const commit = (await git(["-C", into, "rev-parse", "HEAD"], `Cannot read the commit`)).trim();
  await Deno.remove(join(into, ".git"), { recursive: true });
  return { source: url, type, installed_at, commit };
}

async function git(args: string[], failure: string): Promise<string> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command("git", {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { GIT_TERMINAL_PROMPT: "0" },
    }).output();
  } catch (err) {
    throw new Error(`${failure}: git is not available (${(err as Error).message})`);
  }
  if (!output.success) {
    const lines = new TextDecoder().decode(output.stderr).trim().split("\n");
    throw new Error(`${failure}: ${lines.at(-1) || `git exited with code ${output.code}`}`);
  }
  return new TextDecoder().decode(output.stdout);
}

/**
 * Copies a folder tree; symbolic links are recreated as links, never followed. `staging` is
 * never copied into itself (installing a folder that contains the plugin root).
 */
async function copyDir(from: string, to: string, staging: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    if (SKIPPED.has(entry.name) || source === staging) continue;
    const target = join(to, basename(entry.name));
    if (entry.isSymlink) await Deno.symlink(await Deno.readLink(source), target);
    else if (entry.isDirectory) await copyDir(source, target, staging);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}
