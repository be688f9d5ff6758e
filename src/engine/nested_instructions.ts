/**
 * Nested project instructions (docs/prompt.md): when a tool reads, lists or edits inside a
 * sub-folder holding its own instructions file (`AGENTS.md`, or the name `project_instructions`
 * gives), the file's text goes to the model with that tool result, capped and confined exactly
 * as the root file is (readProjectInstructions: only a file inside the worktree after `..` and
 * symlinks, trusted or not), marked with its path. Each file goes once per session: the tool
 * message that carried it lists it in `instructions`, so a resumed session does not send it
 * again, while a compaction that summarised that message away lets it be sent once more.
 */
import type { SessionMessage } from "../session/types.ts";
import type { Tool } from "../tool/types.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import { basename, dirname, normalize, relative } from "../util/posix_path.ts";
import { readProjectInstructions } from "./system_prompt.ts";

/** Categories whose calls bring a folder's instructions: the tools that work on files. */
const FILE_CATEGORIES = new Set<Tool["category"]>(["read", "list", "edit"]);

/** Folders whose instructions are never sent: control folders and installed dependencies. */
const SKIPPED = new Set([".git", ".svc", "node_modules"]);

/** The nested files the model has in front of it: listed by the messages it is still sent. */
export function deliveredInstructions(messages: readonly SessionMessage[]): Set<string> {
  const delivered = new Set<string>();
  const add = (message: SessionMessage) => message.instructions?.forEach((p) => delivered.add(p));
  for (let i = messages.length - 1; i >= 0; i--) {
    const compactFrom = messages[i].compact_from;
    if (compactFrom === undefined) {
      add(messages[i]);
      continue;
    }
    // The messages from compact_from up to the summary are still sent verbatim (buildContext).
    for (let j = Math.min(compactFrom, i); j < i; j++) add(messages[j]);
    break;
  }
  return delivered;
}

/**
 * The sub-folders (worktree-relative, outermost first) that the path arguments of a call to
 * `tool` are in or name; none for tools that do not work on files.
 */
export function touchedFolders(
  { tool, args }: { tool: Tool; args: Record<string, unknown> },
  worktree: string,
): string[] {
  if (!FILE_CATEGORIES.has(tool.category)) return [];
  const paths = [...(tool.pathArgs?.map((k) => args[k]) ?? []), ...(tool.pathsOf?.(args) ?? [])];
  const folders = new Set<string>();
  for (const path of paths) {
    if (typeof path !== "string" || !path) continue;
    let real: string;
    try {
      real = canonicalPath(worktree, path);
    } catch {
      continue;
    }
    if (!isInside(worktree, real)) continue;
    let folder = real;
    try {
      if (!Deno.statSync(real).isDirectory) folder = dirname(real);
    } catch {
      folder = dirname(real); // a file about to be written
    }
    const parts = relative(worktree, folder).split("/").filter(Boolean);
    const end = parts.findIndex((part) => SKIPPED.has(part));
    const kept = end === -1 ? parts : parts.slice(0, end);
    for (let k = 1; k <= kept.length; k++) folders.add(kept.slice(0, k).join("/"));
  }
  return [...folders];
}

/** The instructions a call brings: their text to append to its result and their paths. */
export interface NestedInstructions {
  text: string;
  paths: string[];
}

/**
 * The instruction files of `folders` not yet in `delivered`, read as the root file is; the root
 * file itself (in the system prompt) is never repeated. Undefined when there are none.
 */
export async function nestedInstructions(
  folders: readonly string[],
  options: { worktree: string; fileName: string; delivered: ReadonlySet<string> },
): Promise<NestedInstructions | undefined> {
  const name = basename(options.fileName);
  if (!name || !folders.length) return undefined;
  const root = normalize(options.fileName);
  const texts: string[] = [];
  const paths: string[] = [];
  for (const folder of folders) {
    const path = `${folder}/${name}`;
    if (path === root || options.delivered.has(path)) continue;
    const text = await readProjectInstructions(options.worktree, path);
    if (text === null) continue;
    texts.push(`Project instructions (${path}), for the files in ${folder}/:\n\n${text}`);
    paths.push(path);
  }
  return paths.length ? { text: `\n\n${texts.join("\n\n")}`, paths } : undefined;
}

/**
 * What a finished tool call brings: the instruction files of the sub-folders it worked in that
 * the model does not have yet (`messages`: the session so far). Only calls that ran and succeeded.
 */
export async function callInstructions(
  call: { tool?: Tool; args: Record<string, unknown>; ok: boolean },
  scope: { worktree: string; fileName: string; messages: readonly SessionMessage[] },
): Promise<NestedInstructions | undefined> {
  if (!call.ok || !call.tool || !scope.fileName) return undefined;
  const folders = touchedFolders({ tool: call.tool, args: call.args }, scope.worktree);
  if (!folders.length) return undefined;
  return await nestedInstructions(folders, {
    worktree: scope.worktree,
    fileName: scope.fileName,
    delivered: deliveredInstructions(scope.messages),
  });
}
