/** MCP servers the client tests connect to: real ones from npm, svc's own, and hostile fixtures. */
import { join } from "node:path";
import { TEST_MAIN } from "../../../tests/_support/builds.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const imports: Record<string, string> =
  JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).imports;

/** The npm specifier deno.json pins for `name` (one version for tests and benchmarks). */
export function pinned(name: string): string {
  const specifier = imports[name];
  if (!specifier?.startsWith("npm:")) throw new Error(`deno.json does not pin ${name}`);
  return specifier;
}

/** Deno's cache: servers run with a temp HOME must still find the packages fetched already. */
export const DENO_DIR: string = Deno.env.get("DENO_DIR") ??
  JSON.parse(
    new TextDecoder().decode(
      new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" }).outputSync()
        .stdout,
    ),
  ).denoDir;

/** A stdio `mcp.servers` entry running an npm package's bin with deno. */
export function npmStdio(name: string, pkg: string, args: string[] = [], extra = {}) {
  return {
    name,
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", pinned(pkg), ...args],
    env: { DENO_DIR },
    ...extra,
  };
}

/** A stdio entry running one of the fixture servers in this folder. */
export function fixture(name: string, file: string, args: string[] = [], extra = {}) {
  return {
    name,
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", new URL(file, import.meta.url).pathname, ...args],
    env: { DENO_DIR },
    ...extra,
  };
}

/** The `svc mcp` entry (svc's own server, modern era) for a worktree. */
export function svcMcp(name: string, home: string, extra = {}) {
  return {
    name,
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", TEST_MAIN, "mcp"],
    env: { DENO_DIR, HOME: home, NO_COLOR: "1" },
    ...extra,
  };
}
