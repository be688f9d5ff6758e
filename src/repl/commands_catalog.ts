/** `/type`, `/skill list|show|new|remove`, `/team list|show|new|remove|run`. */
import {
  type CatalogKind,
  catalogTable,
  createSkill,
  createTeam,
  ONE,
  removeSkill,
  removeTeam,
  showEntry,
} from "../runtime/catalogs.ts";
import { type Command, type CommandContext, firstWord } from "./slash_command.ts";
import { visibleControls } from "../util/terminal_text.ts";

async function list(ctx: CommandContext, kind: CatalogKind): Promise<void> {
  const catalog = await ctx.runtime.catalog();
  if (!catalog[kind].size) return ctx.print(`No ${kind} found`);
  ctx.print(catalogTable(kind, catalog));
}

async function show(ctx: CommandContext, kind: CatalogKind, name: string): Promise<void> {
  if (!name) return ctx.error(`usage: /${kind.slice(0, -1)} show <name>`);
  const catalog = await ctx.runtime.catalog();
  const text = showEntry(catalog, { kind, name });
  if (text === undefined) {
    const names = [...catalog[kind].keys()];
    return ctx.error(`unknown ${ONE[kind]} "${name}"; available: ${names.join(", ") || "none"}`);
  }
  ctx.print(visibleControls(text));
}

export const type: Command = {
  name: "type",
  usage: "/type [list | show <name> | <name>]",
  summary: "list the agent types (delegate and team stages use them), or show one",
  details: "Types live in types.json: bundled < plugin < ~/.config/svc < .svc (merged per field).",
  subcommands: ["list", "show"],
  args: "types",
  argsOf: { show: "types" },
  async run(ctx, args) {
    const [sub, rest] = firstWord(args);
    if (!sub || sub === "list") return await list(ctx, "types");
    if (sub === "show") return await show(ctx, "types", rest);
    await show(ctx, "types", sub);
  },
};

export const skill: Command = {
  name: "skill",
  usage: "/skill list|show <name>|new <name> [description]|remove <name>",
  summary: "list, show, create or remove skills (new and remove use .svc/skills/<name>.md)",
  details: "new asks for the skill's markdown content (Ctrl-J or Alt-Enter for more lines).",
  subcommands: ["list", "show", "new", "remove"],
  argsOf: { show: "skills", remove: "skills" },
  async run(ctx, args) {
    const [sub, rest] = firstWord(args);
    const [name, description] = firstWord(rest);
    switch (sub || "list") {
      case "list":
        return await list(ctx, "skills");
      case "show":
        return await show(ctx, "skills", name);
      case "new": {
        if (!name) return ctx.error("usage: /skill new <name> [description]");
        const content = await ctx.ask(`Content of skill ${name} (markdown)`);
        if (content === null || !content.trim()) return ctx.print("no content: nothing written");
        const path = await createSkill(ctx.runtime.worktree, name, { content, description });
        return await ctx.reload().then(() => ctx.print(`wrote ${path}`));
      }
      case "remove": {
        if (!name) return ctx.error("usage: /skill remove <name>");
        if (await removeSkill(ctx.runtime.worktree, name)) {
          return await ctx.reload().then(() => ctx.print(`removed .svc/skills/${name}.md`));
        }
        const found = (await ctx.runtime.catalog()).skills.get(name);
        return ctx.error(
          found
            ? `skill ${name} is not in .svc/skills (its layer is ${found.layer}); remove it there`
            : `no skill ${name}`,
        );
      }
      default:
        return ctx.error(`unknown subcommand ${sub}; usage: ${skill.usage}`);
    }
  },
};

export const team: Command = {
  name: "team",
  usage: "/team list|show <name>|new <name> <type>...|remove <name>|run <name> <task>",
  summary: "list, show, create, remove or run teams (new and remove use .svc/teams.json)",
  details: [
    "new <name> <type> <type> ...  a team whose stages run these agent types in order",
    "run <name> <task>            runs the stages one after another (models the stage types",
    "                             name are approved once, before the run)",
  ].join("\n"),
  subcommands: ["list", "show", "new", "remove", "run"],
  argsOf: { show: "teams", remove: "teams", run: "teams" },
  restOf: { new: "types" },
  async run(ctx, args) {
    const [sub, rest] = firstWord(args);
    const [name, tail] = firstWord(rest);
    switch (sub || "list") {
      case "list":
        return await list(ctx, "teams");
      case "show":
        return await show(ctx, "teams", name);
      case "new": {
        const stages = tail.split(/\s+/).filter(Boolean);
        if (!name || !stages.length) return ctx.error("usage: /team new <name> <type>...");
        const catalog = await ctx.runtime.catalog();
        const unknown = stages.filter((s) => !catalog.types.has(s));
        if (unknown.length) {
          return ctx.error(
            `unknown agent type ${unknown.join(", ")}; /type lists them`,
          );
        }
        const path = await createTeam(ctx.runtime.worktree, name, { stages });
        return await ctx.reload().then(() => ctx.print(`wrote team ${name} to ${path}`));
      }
      case "remove": {
        if (!name) return ctx.error("usage: /team remove <name>");
        if (await removeTeam(ctx.runtime.worktree, name)) {
          return await ctx.reload().then(() =>
            ctx.print(`removed team ${name} from .svc/teams.json`)
          );
        }
        const found = (await ctx.runtime.catalog()).teams.get(name);
        return ctx.error(
          found
            ? `team ${name} is not in .svc/teams.json (its layer is ${found.layer}); remove it there`
            : `no team ${name}`,
        );
      }
      case "run": {
        if (!name || !tail) return ctx.error("usage: /team run <name> <task>");
        if (!ctx.engine) return ctx.error(ctx.engineError);
        const view = ctx.events();
        const run = await ctx.engine.runTeam(name, tail, {
          session: ctx.session,
          signal: ctx.signal,
          onEvent: view.onEvent,
          onStage: ({ stage, of, type, report }) =>
            ctx.print(ctx.style.dim(
              report
                ? `stage ${stage}/${of} ${type}: ${report.status} in ${
                  report.duration.toFixed(1)
                } s (session ${report.session})`
                : `stage ${stage}/${of} ${type}: running`,
            )),
        });
        view.finish();
        if (run.result.content) ctx.print(visibleControls(run.result.content.trimEnd()));
        if (run.memory) ctx.print(ctx.style.dim(`team memory written to ${run.memory}`));
        if (run.status !== "ok") ctx.error(`team ${name}: ${run.status}`);
        return;
      }
      default:
        return ctx.error(`unknown subcommand ${sub}; usage: ${team.usage}`);
    }
  },
};
