/**
 * The editor as the file tools' backend: `fs/read_text_file` and `fs/write_text_file` when the
 * client offers them (`clientCapabilities.fs`), so unsaved buffers are read and edits land in
 * the editor. Each write through the editor is recorded with the text it replaced, for the diff
 * of the call's `tool_call_update`; a file tool that writes to disk is diffed from a snapshot.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { FileAccess } from "../tool/types.ts";

/** A change of one file: the text before (null for a new file) and after. */
export interface FileChange {
  path: string;
  oldText: string | null;
  newText: string;
}

/** What an editor request takes: the SDK's agent-side context's `request`. */
export type EditorRequest = Pick<acp.AgentContext, "request">;

/** The file backend of one ACP session, and the diffs of its calls. */
export class EditorFiles {
  /** What the tools get; undefined when the editor offers neither read nor write. */
  readonly access: FileAccess | undefined;
  /** The last write through the editor per path (the tool records before it returns). */
  #written = new Map<string, FileChange>();
  /** Disk snapshots of edit calls, by call id, when the editor does not write. */
  #snapshots = new Map<string, { path: string; before: string | null }>();

  constructor(
    editor: EditorRequest,
    options: { sessionId: string; fs?: acp.FileSystemCapabilities | null },
  ) {
    const { sessionId, fs } = options;
    const read = fs?.readTextFile
      ? async (path: string, signal: AbortSignal) =>
        (await editor.request("fs/read_text_file", { sessionId, path }, {
          cancellationSignal: signal,
        })).content
      : undefined;
    const write = fs?.writeTextFile
      ? async (path: string, content: string, signal: AbortSignal) => {
        const before = await (read ?? diskText)(path, signal).catch(() => null);
        await editor.request("fs/write_text_file", { sessionId, path, content }, {
          cancellationSignal: signal,
        });
        this.#written.set(path, { path, oldText: before, newText: content });
      }
      : undefined;
    this.access = read || write
      ? { ...(read ? { readText: read } : {}), ...(write ? { writeText: write } : {}) }
      : undefined;
  }

  /** An edit call starts: without an editor that writes, its file's text is kept now. */
  started(call: { id: string; path?: string; edits: boolean }): void {
    if (!call.edits || !call.path || this.access?.writeText) return;
    let before: string | null = null;
    try {
      before = Deno.readTextFileSync(call.path);
    } catch { /* a new file */ }
    this.#snapshots.set(call.id, { path: call.path, before });
  }

  /** The change an edit call made, if it made one. */
  ended(call: { id: string; path?: string; ok: boolean }): FileChange | undefined {
    const snapshot = this.#snapshots.get(call.id);
    this.#snapshots.delete(call.id);
    if (!call.ok || !call.path) return undefined;
    if (this.access?.writeText) {
      const change = this.#written.get(call.path);
      this.#written.delete(call.path);
      return change;
    }
    if (!snapshot) return undefined;
    try {
      const after = Deno.readTextFileSync(snapshot.path);
      return after === snapshot.before
        ? undefined
        : { path: snapshot.path, oldText: snapshot.before, newText: after };
    } catch {
      return undefined;
    }
  }
}

function diskText(path: string): Promise<string> {
  return Deno.readTextFile(path);
}
