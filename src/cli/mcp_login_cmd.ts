/**
 * `svc mcp login <server>` and `svc mcp logout <server>`: signing in to an http entry of
 * `mcp.servers` that asks for OAuth (docs/mcp_client.md#signing-in-oauth). The sign-in opens the
 * browser (or prints the address), receives the redirect on a loopback port and stores the tokens
 * in ~/.config/svc/mcp_oauth.json (0600); logout forgets them.
 */
import type { Command } from "commander";
import { wholeNumber } from "./flags.ts";
import { exitCodeOf, UsageError } from "./usage.ts";

interface LoginFlags {
  path?: string;
  timeout?: string;
  json?: boolean;
}

/** Adds `login` and `logout` to `svc mcp`. */
export function addLoginCommands(mcp: Command, setExit: (code: number) => void): void {
  const act =
    (fn: (server: string, flags: LoginFlags) => Promise<void>) =>
    async (server: string, flags: LoginFlags) => {
      try {
        await fn(server, flags);
      } catch (err) {
        console.error(`svc mcp: ${(err as Error).message}`);
        setExit(exitCodeOf(err));
      }
    };
  mcp.command("login")
    .description(
      "Sign in to an http MCP server that asks for OAuth: opens the browser ($BROWSER, else " +
        "xdg-open; prints the address where there is none) and waits for it on a loopback port",
    )
    .argument("<server>", "the name of an http entry of mcp.servers")
    .option(
      "--path <dir>",
      "worktree whose config names the server (default: the current directory)",
    )
    .option("--timeout <seconds>", "how long to wait for the browser (default: 300)")
    .option("--json", "print the outcome as JSON (never the tokens)")
    .action(act(async (server, flags) => {
      const entry = await httpEntry(server, flags.path);
      const timeout = flags.timeout === undefined
        ? 300
        : wholeNumber(flags.timeout, { flag: "--timeout", min: 1 });
      const { signIn } = await import("../tool/mcp_sign_in.ts");
      const result = await signIn(entry, {
        print: (line) => console.error(line),
        env: Deno.env.toObject(),
        timeoutMs: timeout * 1000,
      });
      if (flags.json) return console.log(JSON.stringify({ signed_in: true, ...result }));
      const details = [
        result.issuer ? `issuer ${result.issuer}` : "",
        result.scope ? `scope ${result.scope}` : "",
        result.refreshable ? "renews itself" : "no refresh token: sign in again when it expires",
      ].filter(Boolean).join("; ");
      console.log(`Signed in to ${server} (${details}); connect it with mcp_connect ${server}`);
    }));
  mcp.command("logout")
    .description("Forget the sign-in (tokens and registered client) of an http MCP server")
    .argument("<server>", "the name of an http entry of mcp.servers")
    .option(
      "--path <dir>",
      "worktree whose config names the server (default: the current directory)",
    )
    .option("--json", "print the outcome as JSON")
    .action(act(async (server, flags) => {
      const entry = await httpEntry(server, flags.path);
      const { signOut } = await import("../tool/mcp_sign_in.ts");
      const had = await signOut(entry.url);
      if (flags.json) return console.log(JSON.stringify({ server, signed_out: had }));
      console.log(had ? `Signed out of ${server}` : `${server} had no sign-in stored`);
    }));
}

/** The http entry named `name` in the worktree's config; a usage error says why not. */
async function httpEntry(name: string, path?: string) {
  // Loaded when a command runs: `svc --help` builds every command.
  const [{ loadConfigReport }, { resolveWorktree }, { signInEntry }] = await Promise.all([
    import("../config/load.ts"),
    import("../runtime/worktree.ts"),
    import("../tool/mcp_sign_in.ts"),
  ]);
  const servers = (await loadConfigReport(resolveWorktree(path))).config["mcp.servers"];
  try {
    return signInEntry(servers, name);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
