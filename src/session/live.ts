import type { SessionMessage } from "./types.ts";

/** How many of the newest tool messages keep their full result in memory. */
export const LIVE_TOOL_MESSAGES = 16;

/**
 * Full tool results by call id, where the stored copy was shaped (noise_tools,
 * session_tool_max_chars), kept only for the last LIVE_TOOL_MESSAGES tool messages and only after
 * the latest compaction boundary. An older result goes to the provider as stored, as it does
 * after a restart, so a long-lived process (`svc serve`) does not hold every result it ever shaped
 * beside the file: memory per session is at most LIVE_TOOL_MESSAGES x tool_max_result_chars.
 */
export class LiveResults {
  #full = new Map<string, string>();
  /** Call ids of the newest tool messages, shaped or not, oldest first. */
  #recent: string[] = [];

  constructor(readonly keep = LIVE_TOOL_MESSAGES) {}

  /** The full result of a call, when it was shaped and is still recent. */
  get(callId: string): string | undefined {
    return this.#full.get(callId);
  }

  get size(): number {
    return this.#full.size;
  }

  /**
   * Notes a message about to be appended after `log`; `live` is its full content. Must be called
   * for every appended message, so the window counts every tool message.
   */
  note(message: SessionMessage, log: readonly SessionMessage[], live?: string): void {
    const id = message.role === "tool" ? message.tool_call_id : undefined;
    if (id) {
      if (live !== undefined && live !== message.content) this.#full.set(id, live);
      this.#recent.push(id);
      if (this.#recent.length > this.keep) {
        const old = this.#recent.shift()!;
        // A provider that reuses call ids: the newer message of that id keeps its result.
        if (!this.#recent.includes(old)) this.#full.delete(old);
      }
    }
    if (message.compact_from !== undefined && this.#full.size > 0) {
      const sent = new Set(log.slice(message.compact_from).map((m) => m.tool_call_id));
      for (const callId of this.#full.keys()) if (!sent.has(callId)) this.#full.delete(callId);
    }
  }
}
