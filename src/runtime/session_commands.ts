/**
 * What `svc sessions` runs: list, show, search, rm and export of a worktree's saved sessions,
 * printed as text or JSON. Each takes the worktree and parsed options; a ref is resolved by
 * `resolveSessionRef` (a full name or a unique prefix), and one that does not resolve is an error
 * naming the closest sessions. Untrusted text (prompts, answers, tool output) reaches the terminal
 * through visibleControls.
 */
import { join } from "../util/posix_path.ts";
import { localDir } from "../util/dirs.ts";
import { table } from "../util/text_table.ts";
import { visibleControls } from "../util/terminal_text.ts";
import { UsageError } from "../shared/usage_error.ts";
import { SessionStore } from "../session/store.ts";
import { sessionFiles, type SessionSummary, summarize } from "../session/listing.ts";
import { escapeRegExp, type SearchReport, searchSessions } from "../session/search.ts";
import { counted, shortTime, transcriptMarkdown, transcriptText } from "../session/transcript.ts";
import type { SessionData } from "../session/types.ts";
import { deleteSession } from "./session_api.ts";
import { resolveSessionRef } from "./sessions.ts";
import { sessionContext, type SessionContextFigure } from "./session_context.ts";
import { contextFigure } from "./context_figure.ts";

/** Where a command's text goes and in which form. */
export interface SessionsOutput {
  json?: boolean;
  /** Prints one block of text (default: standard output). */
  out?: (text: string) => void;
}

const outOf = (options: SessionsOutput) => options.out ?? ((text: string) => console.log(text));
const printJson = (options: SessionsOutput, value: unknown) =>
  outOf(options)(JSON.stringify(value, null, 2));

function sessionsDir(worktree: string): string {
  return join(localDir(worktree), "sessions");
}

/** The name `ref` resolves to, or an Error with the closest names (exit 1). */
export async function sessionNamed(worktree: string, ref: string): Promise<string> {
  const found = await resolveSessionRef(ref, { worktree });
  if (found.ok) return found.name;
  const list = found.suggestions.length ? "" : "; svc sessions list shows the saved ones";
  throw new Error(`${visibleControls(found.message)}${list}`);
}

/** `1.2 KiB`, `3.4 MiB`, `512 B`. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1 << 20) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
}

/** `svc sessions list`: newest first, at most `limit`. */
export function list(
  worktree: string,
  options: SessionsOutput & { limit?: number },
): void {
  const files = sessionFiles(sessionsDir(worktree));
  const rows = files.slice(0, options.limit ?? files.length).map(summarize);
  if (options.json) return printJson(options, rows);
  if (!rows.length) {
    return outOf(options)('No saved sessions here (svc run "..." or svc starts one)');
  }
  const count = (n: number) => (n < 0 ? "?" : String(n));
  outOf(options)(table(
    ["NAME", "TURNS", "MESSAGES", "SIZE", "LAST ACTIVITY (UTC)"],
    rows.map((r: SessionSummary) => [
      visibleControls(r.name),
      count(r.turns),
      count(r.messages),
      humanSize(r.size_bytes),
      shortTime(r.updated_at),
    ]),
  ));
  if (rows.length < files.length) {
    outOf(options)(`(${rows.length} of ${files.length} sessions; --limit shows more)`);
  }
}

/** The context figure in words. */
export function contextLine(figure: SessionContextFigure): string {
  const from = figure.compactions
    ? `, from message #${figure.from_message} on after ${counted(figure.compactions, "compaction")}`
    : "";
  const reported = figure.last_prompt_tokens === null
    ? ""
    : `; last request: ${figure.last_prompt_tokens.toLocaleString("en-US")} prompt tokens reported`;
  return `${contextFigure(figure)} of messages in the next request${from} ` +
    `(system prompt and tools not counted)${reported}`;
}

/** `svc sessions show <ref>`: the header, the context figure and the conversation. */
export async function show(
  worktree: string,
  ref: string,
  options: SessionsOutput & { thinking?: boolean },
): Promise<void> {
  const name = await sessionNamed(worktree, ref);
  const store = new SessionStore(worktree);
  const data = await store.read(name);
  const context = sessionContext(data);
  if (options.json) return printJson(options, { ...data, context });
  const size = (await Deno.stat(join(store.dir, `${name}.json`))).size;
  const header = [
    `session ${name}`,
    `created ${shortTime(data.created_at)}, last activity ${shortTime(data.updated_at)} (UTC); ` +
    `${counted(turnsOf(data), "turn")}, ${counted(data.messages.length, "message")}, ` +
    humanSize(size),
    ...(data.parent_id ? [`parent: ${data.parent_id}`] : []),
    ...(data.forked_from
      ? [`forked from ${data.forked_from.session} at turn ${data.forked_from.turn}`]
      : []),
    ...(data.errors?.length ? [`errors: ${data.errors.length} (see --json)`] : []),
    contextLine(context),
  ];
  const body = transcriptText(data, options);
  outOf(options)(visibleControls(`${header.join("\n")}\n\n${body || "(no messages)"}`));
}

function turnsOf(data: SessionData): number {
  return data.messages.filter((m) => m.role === "user").length;
}

/** `svc sessions search <text>`: the best `limit` sessions with their matching lines. */
export function search(
  worktree: string,
  text: string,
  options: SessionsOutput & { limit?: number; color?: boolean },
): void {
  if (!text.trim()) throw new UsageError("svc sessions search needs some text to look for");
  const report = searchSessions(sessionsDir(worktree), text, { limit: options.limit ?? 20 });
  if (options.json) return printJson(options, report.results);
  outOf(options)(searchText(report, { text, color: options.color ?? false }));
  if (report.skipped.length) {
    const names = report.skipped.map((s) => `${visibleControls(s.name)} (${s.reason})`);
    console.error(`svc sessions search: skipped ${names.join(", ")}`);
  }
}

/** The text of a search: each session's full name, counts and matching lines, then a total. */
export function searchText(
  report: SearchReport,
  { text, color }: { text: string; color: boolean },
): string {
  if (!report.results.length) {
    return `No session mentions "${visibleControls(text)}" (${report.scanned} searched)`;
  }
  const needle = new RegExp(escapeRegExp(visibleControls(text)), "gi");
  const mark = (line: string) =>
    visibleControls(line).replace(needle, (m) => color ? `\x1b[7m${m}\x1b[27m` : `>>${m}<<`);
  const blocks = report.results.map((r) => {
    const head = `${visibleControls(r.name)}  ${r.matches} match${r.matches === 1 ? "" : "es"} ` +
      `in ${r.messages} message${r.messages === 1 ? "" : "s"}, ${shortTime(r.updated_at)}`;
    const lines = r.hits.slice(0, 3).map((h) =>
      `  #${h.index + 1} ${h.role}${h.tool ? ` ${visibleControls(h.tool)}` : ""}: ${mark(h.text)}`
    );
    if (r.hits.length > 3 || r.matches > lines.length) {
      lines.push(`  ... all of it: svc sessions show ${visibleControls(r.name)}`);
    }
    return [head, ...lines].join("\n");
  });
  const more = report.candidates > report.results.length
    ? ` (up to ${report.candidates} may match; --limit shows more)`
    : "";
  return `${blocks.join("\n\n")}\n\n${report.results.length} sessions shown of ${report.scanned} ` +
    `searched${more}`;
}

/**
 * `svc sessions rm <ref>`: asks through `confirm` unless `yes`; refuses when it cannot ask. The
 * session's undo checkpoints (`.svc/checkpoints/<name>/`) go with it; a checkpoint folder that
 * leads outside `.svc` is left alone and named on standard error.
 */
export async function remove(
  worktree: string,
  ref: string,
  options: SessionsOutput & {
    yes?: boolean;
    confirm?: (question: string) => Promise<boolean>;
  },
): Promise<void> {
  const name = await sessionNamed(worktree, ref);
  const store = new SessionStore(worktree);
  if (!options.yes) {
    if (!options.confirm) {
      throw new UsageError(
        `not asking without a terminal: svc sessions rm ${name} --yes deletes it`,
      );
    }
    const [row] = sessionFiles(store.dir).filter((f) => f.name === name).map(summarize);
    const what = row ? ` (${counted(row.turns, "turn")}, ${humanSize(row.size_bytes)})` : "";
    if (!(await options.confirm(`Delete session ${name}${what}?`))) {
      return outOf(options)(`kept ${name}`);
    }
  }
  const { checkpoints_removed: removed, checkpoints_kept: kept } = await deleteSession(store, name);
  if (kept) console.error(`svc sessions: kept the undo checkpoints of ${name}: ${kept}`);
  if (options.json) printJson(options, { deleted: name, checkpoints_removed: removed });
  else outOf(options)(`deleted ${name}${removed ? " and its undo checkpoints" : ""}`);
}

/** `svc sessions export <ref>`: Markdown to standard output (controls made visible) or a file. */
export async function exportSession(
  worktree: string,
  ref: string,
  options: SessionsOutput & { output?: string; thinking?: boolean },
): Promise<void> {
  const name = await sessionNamed(worktree, ref);
  const data = await new SessionStore(worktree).read(name);
  const markdown = transcriptMarkdown(data, options);
  if (options.output === undefined) {
    return outOf(options)(visibleControls(markdown).trimEnd());
  }
  await Deno.writeTextFile(options.output, markdown);
  console.error(
    `wrote ${name} to ${options.output} (${humanSize(new TextEncoder().encode(markdown).length)})`,
  );
}
