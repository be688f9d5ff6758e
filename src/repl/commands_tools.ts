/**
 * `/tool <name> <json-args>` and `/mcp connect|list|disconnect`: tool calls typed by the user,
 * run by `Engine.runTool` through the one invocation path (src/tool/invoke.ts), so the policy,
 * the approval prompt and the session's audit apply exactly as to the model's calls.
 */
import { type Command, type CommandContext, firstWord } from "./slash_command.ts";

/** Runs one tool call and prints its result; the tool's status line shows as it runs. */
async function callTool(ctx: CommandContext, name: string, args: string): Promise<boolean> {
  // Running a tool needs no model: without a backend, a tools-only engine runs it.
  const engine = await ctx.toolEngine();
  const view = ctx.events();
  const inv = await engine.runTool(name, args, {
    session: ctx.session,
    signal: ctx.signal,
    onEvent: view.onEvent,
  });
  view.finish();
  if (inv.content) ctx.print(inv.content.trimEnd());
  return inv.ok;
}

export const tool: Command = {
  name: "tool",
  usage: "/tool <name> <json-args>",
  summary: "run one tool yourself, under the same permissions and prompts as the model's calls",
  details: 'Example: /tool file_read {"path": "README.md", "limit": 20}',
  args: "tools",
  async run(ctx, args) {
    const [name, json] = firstWord(args);
    if (!name) return ctx.error("usage: /tool <name> <json-args>");
    const text = json || "{}";
    try {
      const parsed = JSON.parse(text);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
    } catch {
      return ctx.error(`the arguments must be a JSON object, like {"path": "README.md"}`);
    }
    await callTool(ctx, name, text);
  },
};

export const mcp: Command = {
  name: "mcp",
  usage: "/mcp connect [server] | list | disconnect <server> | login <server> | logout <server>",
  summary:
    "connect, list or disconnect the MCP servers of mcp.servers (their tools join the next turn)",
  details: "connect, list and disconnect run the mcp_connect, mcp_list and mcp_disconnect tools " +
    "(category mcp, ask by default). login signs in to an http server that asks for OAuth (as " +
    "svc mcp login does: the browser, or the address to open); logout forgets that sign-in.",
  subcommands: ["connect", "list", "disconnect", "login", "logout"],
  argsOf: { connect: "servers", disconnect: "servers", login: "servers", logout: "servers" },
  async run(ctx, args) {
    const [sub, server] = firstWord(args);
    if (!ctx.runtime.config["mcp.servers"].length) {
      return ctx.error("No MCP servers are configured: add entries to mcp.servers in the config");
    }
    switch (sub || "list") {
      case "list":
        return void await callTool(ctx, "mcp_list", "{}");
      case "connect":
        return void await callTool(ctx, "mcp_connect", JSON.stringify(server ? { server } : {}));
      case "disconnect":
        if (!server) return ctx.error("usage: /mcp disconnect <server>");
        return void await callTool(ctx, "mcp_disconnect", JSON.stringify({ server }));
      case "login":
      case "logout":
        if (!server) return ctx.error(`usage: /mcp ${sub} <server>`);
        return await signInOrOut(ctx, sub, server);
      default:
        return ctx.error(`unknown subcommand ${sub}; usage: ${mcp.usage}`);
    }
  },
};

/** `/mcp login <server>` and `/mcp logout <server>` (src/tool/mcp_sign_in.ts). */
async function signInOrOut(ctx: CommandContext, sub: string, server: string): Promise<void> {
  const { signIn, signInEntry, signOut } = await import("../tool/mcp_sign_in.ts");
  try {
    const entry = signInEntry(ctx.runtime.config["mcp.servers"], server);
    if (sub === "logout") {
      const had = await signOut(entry.url);
      return ctx.print(had ? `Signed out of ${server}` : `${server} had no sign-in stored`);
    }
    const result = await signIn(entry, {
      print: (line) => ctx.print(line),
      env: Deno.env.toObject(),
      signal: ctx.signal,
    });
    ctx.print(
      `Signed in to ${server}${result.scope ? ` (scope ${result.scope})` : ""}; ` +
        `connect it with /mcp connect ${server}`,
    );
  } catch (err) {
    const what = sub === "login" ? "sign in to" : "sign out of";
    ctx.error(`could not ${what} ${server}: ${(err as Error).message}`);
  }
}
