/** `/resume [session]` (a picker of recent sessions without one) and `/fork [turn]`. */
import type { SessionData } from "../runtime/mod.ts";
import { interactiveName, recentSessions, resolveSessionRef } from "../runtime/sessions.ts";
import { turnCount } from "../runtime/sessions.ts";
import { visibleControls } from "../util/terminal_text.ts";
import { cutText } from "../util/text_cut.ts";
import { preview } from "./commands_session.ts";
import type { Command, CommandContext } from "./slash_command.ts";

/** Sessions the `/resume` picker lists, the most recently active first. */
export const PICKER_SESSIONS = 20;

export const resume: Command = {
  name: "resume",
  usage: "/resume [session]",
  summary: "continue a saved session: pick from the recent ones, or name it (a prefix will do)",
  details: [
    "/resume            a list of this worktree's recent sessions (title, turns, last activity):",
    "                   Up and Down select, Enter opens, Esc cancels",
    "/resume <session>  its full name or a prefix only one name starts with",
  ].join("\n"),
  args: "sessions",
  log: "unless_fresh",
  async run(ctx, args) {
    const worktree = ctx.runtime.worktree;
    let name: string;
    if (args) {
      const found = await resolveSessionRef(args, { worktree });
      if (!found.ok) return ctx.error(`/resume: ${found.message}`);
      name = found.name;
    } else {
      const picked = await pickSession(ctx);
      if (picked === null) return;
      name = picked;
    }
    if (name === ctx.session.name) return ctx.print(`${name} is the current session`);
    await openSaved(ctx, name);
  },
};

export const fork: Command = {
  name: "fork",
  usage: "/fork [turn]",
  summary: "continue in a new session copied from this one, up to its last turn or turn N",
  details: [
    "The new session's history is this session's up to the end of the turn (default the last),",
    "and its forked_from names this session and the turn. This session is left as it is:",
    "/resume returns to it.",
  ].join("\n"),
  log: false,
  async run(ctx, args) {
    const at = args ? Number(args) : undefined;
    if (args && !/^\d+$/.test(args)) return ctx.error("usage: /fork [turn], a turn number");
    const source = ctx.session;
    const first = source.data.messages.find((m) => m.role === "user")?.content ?? "";
    const forked = await ctx.runtime.sessions.fork(source.data, {
      name: interactiveName(new Date(), first),
      at,
    });
    if ("problem" in forked) return ctx.error(`/fork: ${forked.problem}`);
    await ctx.useSession(forked, { fresh: false });
    const { turn } = forked.data.forked_from!;
    ctx.print(
      `forked ${source.name} at turn ${turn} into ${forked.name} ` +
        `(${forked.data.messages.length} messages); /resume ${source.name} returns to it`,
    );
  },
};

/** The picker of recent sessions; the picked name, or null (none saved, or Esc). */
async function pickSession(ctx: CommandContext): Promise<string | null> {
  const recent = (await recentSessions({
    worktree: ctx.runtime.worktree,
    limit: PICKER_SESSIONS + 1,
  })).filter((entry) => entry.name !== ctx.session.name).slice(0, PICKER_SESSIONS);
  if (!recent.length) {
    ctx.print("No other saved sessions in this worktree yet");
    return null;
  }
  const now = Date.now();
  const rows = await Promise.all(recent.map(async ({ name, active }) => {
    const data = await ctx.runtime.sessions.read(name).catch(() => null);
    return `${describe(name, data)}  ${ctx.style.dim(`${ago(now - active.getTime())}  ${name}`)}`;
  }));
  const at = await ctx.pick("Resume a session", rows);
  return at === null ? null : recent[at].name;
}

/** A picker row's start: the first prompt (the title) and the turns. */
function describe(name: string, data: SessionData | null): string {
  if (!data) return `${name} (unreadable)`;
  const first = data.messages.find((m) => m.role === "user")?.content ?? "(no prompt yet)";
  const title = visibleControls(cutText(first.replace(/\s+/g, " ").trim(), 48));
  const turns = turnCount(data.messages);
  return `${title}  (${turns} turn${turns === 1 ? "" : "s"})`;
}

/** "just now", "5 min ago", "3 h ago", "2 d ago". */
export function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} d ago`;
}

/** Switches to the saved session `name` and shows its last messages. */
async function openSaved(ctx: CommandContext, name: string): Promise<void> {
  const loaded = await ctx.runtime.sessions.openOrCreate(name);
  await ctx.useSession(loaded, { fresh: false });
  ctx.print(`resumed ${loaded.name} (${loaded.data.messages.length} messages)`);
  const shown = preview(loaded.data.messages, ctx.style);
  if (shown) ctx.print(shown);
}
