/** `/session new|list|load|delete|save|preview`. */
import type { SessionMessage } from "../runtime/mod.ts";
import { checkSessionName, interactiveName } from "../runtime/sessions.ts";
import type { Style } from "./style.ts";
import { type Command, firstWord } from "./slash_command.ts";
import { visibleControls } from "../util/terminal_text.ts";
import { cutText } from "../util/text_cut.ts";
import { imageLabel } from "../tool/images.ts";

/** Messages shown by `/session preview` and after `/session load`. */
export const PREVIEW_MESSAGES = 6;

export const session: Command = {
  name: "session",
  usage: "/session new|list|load <name>|delete <name>|save [name]|preview [name]",
  summary: "start, list, load, delete, rename or preview sessions (.svc/sessions)",
  details: [
    "new              a new session (named by its first message)",
    "list             the saved sessions, * marks this one",
    "load <name>      continue a saved session",
    "delete <name>    delete a saved session (asks first)",
    "save [name]      make sure this session is on disk; with a name, rename it",
    "preview [name]   the last messages of a session (default this one)",
  ].join("\n"),
  subcommands: ["new", "list", "load", "delete", "save", "preview"],
  argsOf: { load: "sessions", delete: "sessions", preview: "sessions" },
  async run(ctx, args) {
    const [sub, rest] = firstWord(args);
    const store = ctx.runtime.sessions;
    const current = ctx.session;
    switch (sub || "list") {
      case "new":
        await ctx.useSession(store.create(interactiveName()), { fresh: true });
        return ctx.print("new session (named by its first message)");
      case "list": {
        const names = await store.list();
        if (!names.length) return ctx.print("No saved sessions yet");
        return ctx.print(names.map((n) => `${n === current.name ? "*" : " "} ${n}`).join("\n"));
      }
      case "load": {
        const problem = rest ? checkSessionName(rest) : "usage: /session load <name>";
        if (problem) return ctx.error(problem);
        if (!(await store.exists(rest))) {
          return ctx.error(`no session ${rest}; /session list shows the saved ones`);
        }
        const loaded = await store.openOrCreate(rest);
        await ctx.useSession(loaded, { fresh: false });
        ctx.print(`loaded ${loaded.name} (${loaded.data.messages.length} messages)`);
        return ctx.print(preview(loaded.data.messages, ctx.style));
      }
      case "delete": {
        const problem = rest ? checkSessionName(rest) : "usage: /session delete <name>";
        if (problem) return ctx.error(problem);
        if (rest === current.name) {
          return ctx.error("this is the current session: /session new first, then delete it");
        }
        if (!(await store.exists(rest))) return ctx.error(`no session ${rest}`);
        if (!(await ctx.confirm(`Delete session ${rest}?`))) return ctx.print("kept");
        await store.delete(rest);
        return ctx.print(`deleted ${rest}`);
      }
      case "save": {
        if (rest) {
          const problem = checkSessionName(rest);
          if (problem) return ctx.error(problem);
          await current.rename(rest);
        }
        await current.sync();
        return ctx.print(
          current.data.messages.length
            ? `saved ${current.path ?? current.name}`
            : `${current.name}: nothing to save yet (the first message writes it)`,
        );
      }
      case "preview": {
        const name = rest || current.name;
        const problem = checkSessionName(name);
        if (problem) return ctx.error(problem);
        const messages = name === current.name
          ? current.data.messages
          : (await store.exists(name))
          ? (await store.read(name)).messages
          : null;
        if (!messages) return ctx.error(`no session ${name}`);
        return ctx.print(preview(messages, ctx.style) || `${name} has no messages`);
      }
      default:
        return ctx.error(`unknown subcommand ${sub}; usage: ${session.usage}`);
    }
  },
};

/**
 * The last messages, one line each: role and the start of the content, then each image the
 * message carries as `[image: shot.png (image/png, 12.0 KiB)]` (never its data).
 */
export function preview(messages: readonly SessionMessage[], style: Style): string {
  return messages
    .filter((m) => m.role !== "system" || m.compact_from !== undefined)
    .slice(-PREVIEW_MESSAGES)
    .map((m) => {
      const text = (m.content ?? (m.tool_calls?.length
        ? `(calls ${
          m.tool_calls.map((c) => c.function.name).join(", ")
        })`
        : "")).replace(/\s+/g, " ").trim();
      const role = m.compact_from !== undefined ? "summary" : m.role;
      const images = (m.images ?? []).map((image) => ` [image: ${imageLabel(image)}]`).join("");
      const shown = visibleControls(
        (text.length > 160 ? `${cutText(text, 157)}...` : text) + images,
      );
      return `${style.dim(`${role}:`)} ${shown}`;
    })
    .join("\n");
}
