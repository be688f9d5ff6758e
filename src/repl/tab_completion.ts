/**
 * Tab in the input line: the one candidate (and a space) or the candidates' longer common prefix
 * replaces the word at the cursor, else the candidates are listed in the hint. The names come
 * from the loaded runtime. The REPL imports this module at the first Tab.
 */
import type { Engine, Runtime } from "../runtime/mod.ts";
import { commonPrefix, complete, type Completion, mentionAt } from "./complete.ts";
import type { Editor } from "./editor.ts";
import type { ArgKind, Command } from "./slash_command.ts";

/** Where completion takes its names. */
export interface CompletionHost {
  readonly runtime: Runtime | null;
  readonly engine: Engine | null;
  readonly commands: readonly Command[];
  /** The engine tools run on without a model backend (`/tool` needs none). */
  toolEngine?(): Promise<Engine>;
}

/**
 * Completes the editor's word at the cursor; false when nothing changed (no candidate, or the
 * text or cursor moved while names were read).
 */
export async function completeInput(editor: Editor, host: CompletionHost): Promise<boolean> {
  const text = editor.text;
  const cursor = editor.cursor;
  const mention = mentionAt(text, cursor);
  const found = await (mention ? completeMention(host, { ...mention, cursor }) : complete(text, {
    cursor,
    commands: host.commands,
    names: (kind) => completionNames(host, kind),
  }))
    .catch(() => null);
  if (!found || editor.text !== text || editor.cursor !== cursor) return false;
  const prefix = commonPrefix(found.candidates);
  const single = found.candidates.length === 1;
  // A folder stays open for the next Tab: no space after its `/`.
  const only = found.candidates[0];
  const replacement = single ? (only.endsWith("/") ? only : `${only} `) : prefix;
  if (replacement.length > found.end - found.start || single) {
    editor.replace(found.start, found.end, replacement);
  } else {
    editor.hint = found.candidates.slice(0, 40).join("  ");
  }
  return true;
}

/** `@path` completion over the worktree (ignored files left out); none before the runtime loads. */
async function completeMention(
  host: CompletionHost,
  at: { start: number; typed: string; cursor: number },
): Promise<Completion | null> {
  if (!host.runtime) return null;
  const { completePath } = await import("../runtime/worktree_paths.ts");
  const paths = await completePath(host.runtime.worktree, at.typed);
  return paths.length
    ? { start: at.start, end: at.cursor, candidates: paths.map((p) => `@${p}`) }
    : null;
}

/** The names an argument of `kind` completes to; none before the runtime is loaded. */
async function completionNames(host: CompletionHost, kind: ArgKind): Promise<readonly string[]> {
  const runtime = host.runtime;
  if (!runtime) return [];
  switch (kind) {
    case "commands":
      return host.commands.map((c) => c.name);
    case "sessions":
      return await runtime.sessions.list();
    case "types":
      return [...(await runtime.catalog()).types.keys()];
    case "teams":
      return [...(await runtime.catalog()).teams.keys()];
    case "skills":
      return [...(await runtime.catalog()).skills.keys()];
    case "servers":
      return runtime.config["mcp.servers"].map((s) => s.name);
    case "tools": {
      const engine = host.engine ?? await host.toolEngine?.();
      return engine ? engine.offeredTools().map((t) => t.name) : [];
    }
    case "providers": {
      const { connectChoices } = await import("../runtime/connect.ts");
      return connectChoices(runtime.plugins.providers);
    }
    case "keys": {
      const { ConfigSchema } = await import("../config/schema.ts");
      return Object.keys(ConfigSchema.shape);
    }
  }
  return [];
}
