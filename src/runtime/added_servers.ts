/**
 * MCP servers a front-end adds to a runtime over its config's (an ACP editor's `mcpServers` of
 * `session/new`): validated like `mcp.servers` entries and connected when the runtime starts.
 * They come from the person's editor, not from the worktree, so the worktree's trust does not
 * restrict them and they need no `svc trust --mcp` approval (the name must not be the config's).
 */
import type { Config } from "../config/schema.ts";

/**
 * `config` with `servers` after its own `mcp.servers`; throws naming the first invalid one. The
 * schema module (zod) loads only when there are servers: svc's start path does without zod.
 */
export async function withAddedServers(
  config: Config,
  servers: readonly unknown[] | undefined,
): Promise<Config> {
  if (!servers?.length) return config;
  const { McpServerSchema } = await import("../config/schema.ts");
  const own = config["mcp.servers"];
  const taken = new Set(own.flatMap((server) => [server.name, server.prefix ?? server.name]));
  const added = servers.map((server, index) => {
    const parsed = McpServerSchema.safeParse(server);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`MCP server ${index + 1}: ${issue.path.join(".")}: ${issue.message}`);
    }
    if (taken.has(parsed.data.name)) {
      throw new Error(
        `MCP server ${parsed.data.name}: the name is taken by the config's mcp.servers; rename it`,
      );
    }
    taken.add(parsed.data.name);
    return parsed.data;
  });
  return { ...config, "mcp.servers": [...own, ...added] };
}
