/** `/connect`, `/model`, `/models` (`/model-list`), `/provider`. */
import { listModels } from "../provider/unary.ts";
import { connectProvider, connectSummary, resolvePick } from "../runtime/connect.ts";
import type { Command, CommandContext } from "./slash_command.ts";

class Cancelled extends Error {}

export const connect: Command = {
  name: "connect",
  usage: "/connect [<name> | <url> [name]]",
  summary: "connect a model backend: store its key, write provider and base_url (never the model)",
  details: [
    "/connect               pick a known provider by number or name, or type a URL",
    "/connect <name>        its default address; asks only for the API key (Enter keeps a stored key)",
    "/connect <url>         a known host or plugin address selects that provider, else a custom",
    "                       provider named after the host",
    "/connect <url> <name>  a custom provider with that name",
    "Every form probes GET /v1/models unless connect_check is false; a failed probe is saved",
    "only when you answer yes to Save anyway. The key goes to ~/.config/svc/providers.json (0600).",
  ].join("\n"),
  args: "providers",
  async run(ctx, args) {
    const [target, name, extra] = args.split(/\s+/).filter(Boolean);
    if (extra) return ctx.error("usage: /connect [<name> | <url> [name]]");
    try {
      const outcome = await connectProvider({
        target,
        name,
        worktree: ctx.runtime.worktree,
        providers: ctx.runtime.plugins.providers,
      }, {
        pick: (choices) => pick(ctx, choices),
        askKey: async (provider, stored) => {
          const typed = await ctx.ask(
            `API key for ${provider}${stored ? " (Enter keeps the stored key)" : ""}`,
            { mask: true },
          );
          if (typed === null) throw new Cancelled("cancelled; nothing was saved");
          return typed;
        },
        confirmSave: (error) => {
          ctx.error(error);
          return ctx.confirm("Save anyway?");
        },
      });
      for (const warning of outcome.warnings) ctx.error(`warning: ${warning}`);
      ctx.print(connectSummary(outcome));
      await ctx.reload();
    } catch (err) {
      ctx.error(`/connect: ${(err as Error).message}`);
    }
  },
};

/** The bare form's picker: a numbered list; a number, a name or a URL is accepted. */
async function pick(ctx: CommandContext, choices: readonly string[]): Promise<string> {
  ctx.print(choices.map((c, i) => `${String(i + 1).padStart(3)}. ${c}`).join("\n"));
  while (true) {
    const answer = await ctx.ask("Provider (number, name or URL)", { choices });
    if (answer === null) throw new Cancelled("cancelled; nothing was saved");
    const target = resolvePick(answer, choices);
    if (target) return target;
    ctx.error(
      `no choice ${answer.trim() || "(empty)"}: type 1 to ${choices.length}, a name or a URL`,
    );
  }
}

export const model: Command = {
  name: "model",
  usage: "/model [<model> | <provider/model>]",
  summary: "show the model, or switch to another (a provider/model ref asks for approval once)",
  details: "Approved refs are kept in ~/.config/svc/models.json. The config is not changed.",
  async run(ctx, args) {
    if (!args) {
      if (!ctx.engine) return ctx.error(ctx.engineError);
      return ctx.print(`${ctx.engine.deps.provider}/${ctx.engine.deps.model}`);
    }
    await ctx.useModel({ model: args });
  },
};

export const models: Command = {
  name: "models",
  aliases: ["model-list"],
  usage: "/models",
  summary: "list the models the current provider offers (GET /v1/models)",
  async run(ctx) {
    const conn = ctx.connection;
    if (!conn) return ctx.error(ctx.engineError);
    try {
      const ids = await listModels(conn, ctx.signal);
      if (!ids.length) return ctx.print(`${conn.provider} lists no models`);
      ctx.print(ids.map((id) => `${id === conn.model ? "*" : " "} ${id}`).join("\n"));
    } catch (err) {
      ctx.error((err as Error).message);
    }
  },
};

export const provider: Command = {
  name: "provider",
  usage: "/provider [name]",
  summary: "show the provider, or switch to another known or connected one",
  details: "A provider with no stored key still switches; /connect <provider> adds the key.",
  args: "providers",
  async run(ctx, args) {
    if (!args) {
      if (!ctx.engine) return ctx.error(ctx.engineError);
      return ctx.print(`${ctx.engine.deps.provider} (model ${ctx.engine.deps.model})`);
    }
    await ctx.useModel({ provider: args });
  },
};
