/**
 * Run memory: what an agent's later runs need to know, kept in a Markdown file and rewritten after
 * each run. Team runs (`.svc/teams/<name>/memory.md`) and jobs (`.svc/jobs/<name>.memory.md`)
 * share it: the model merges the memory so far with the run into a short summary; when that fails
 * (no answer, an error, a cancelled run) the caller's fallback entry is appended instead.
 */
import type { ChatClient, Reasoning } from "../provider/types.ts";
import { writeFileAtomic } from "../util/atomic.ts";
import { readTextCapped } from "../util/fs.ts";
import { cutText, tailText } from "../util/text_cut.ts";

/** A memory file keeps at most this many characters (the newest part). */
export const RUN_MEMORY_MAX = 16_000;

/** The model that summarizes: an engine's client, model and reasoning setting. */
export interface SummaryModel {
  client: ChatClient;
  model: string;
  reasoning?: Reasoning;
}

/** What one summary is made from. */
export interface MemoryUpdate {
  /** Who keeps this memory, for the instruction ("an agent team", "a recurring job"). */
  keeper: string;
  /** Heading lines of the run ("Team: x\nTask: y"). */
  header: string;
  /** The memory so far (may be empty). */
  memory: string;
  /** The run itself, as text. */
  run: string;
  /** The entry appended to the memory so far when summarizing fails. */
  fallback: string;
}

/** The memory file's text, or "" when it is missing or unreadable. */
export async function readRunMemory(path: string): Promise<string> {
  try {
    return (await readTextCapped(path, RUN_MEMORY_MAX * 4, { head: true })).text;
  } catch {
    return "";
  }
}

/**
 * The new memory: the model's merge of the memory so far with this run (at most 300 words asked),
 * or, when the model gives no answer or `signal` is aborted, the memory so far plus the fallback
 * entry. `summarized` says which. Capped at RUN_MEMORY_MAX characters, newest kept.
 */
export async function summarizeRun(
  model: SummaryModel | null,
  update: MemoryUpdate & { signal: AbortSignal },
): Promise<{ text: string; summarized: boolean }> {
  const { signal } = update;
  if (model && !signal.aborted) {
    const reply = await model.client.chatNonStreaming({
      model: model.model,
      max_tokens: 1024,
      reasoning: model.reasoning,
      messages: [
        {
          role: "system",
          content: `You keep the memory of ${update.keeper}: what future runs need to know. ` +
            "Merge the memory so far with this run into at most 300 words of plain Markdown: " +
            "decisions, facts learned, open problems. No preamble.",
        },
        {
          role: "user",
          content: `${update.header}\n\n# Memory so far\n\n${
            update.memory.trim() || "(none)"
          }\n\n# This run\n\n${update.run}`,
        },
      ],
    }, signal).catch((err) => ({ error: String(err), content: "" }));
    if (!reply.error && reply.content.trim()) {
      return { text: tail(`${reply.content.trim()}\n`), summarized: true };
    }
  }
  const entry = update.fallback.endsWith("\n") ? update.fallback : `${update.fallback}\n`;
  const text = update.memory.trim() ? `${update.memory.trim()}\n\n${entry}` : entry;
  return { text: tail(text), summarized: false };
}

/** Writes a memory file atomically; `confineTo` keeps it inside a folder (untrusted worktrees). */
export async function writeRunMemory(
  path: string,
  text: string,
  confineTo?: string,
): Promise<void> {
  await writeFileAtomic(path, text, {
    parents: true,
    ...(confineTo === undefined ? {} : { confineTo }),
  });
}

/** Text on one line, cut at `max` characters with an ellipsis. */
export function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${cutText(flat, max)}...` : flat;
}

function tail(text: string): string {
  return tailText(text, RUN_MEMORY_MAX);
}
