import type { Tool, ToolHost } from "./types.ts";
import { checkToolName } from "./wire_name.ts";

/**
 * Tools added at run time (an MCP client's imported tools), each owned by the plugin that added
 * it. A source of the per-turn tool view: what is added during a turn is offered from the next
 * one. Lives as long as the process that holds it.
 */
export class ToolSet {
  #tools = new Map<string, { tool: Tool; owner: string }>();
  #hosts = new Map<string, ToolHost>();

  /** @param reserved names that can never be taken (the base registry's tools and aliases). */
  constructor(readonly reserved: (name: string) => boolean = () => false) {}

  /** The tools, in the order added. */
  tools(): Tool[] {
    return [...this.#tools.values()].map((entry) => entry.tool);
  }

  /** The host interface of one owner (the same object each time): it sees only its own tools. */
  host(owner: string): ToolHost {
    let host = this.#hosts.get(owner);
    if (!host) this.#hosts.set(owner, host = this.#newHost(owner));
    return host;
  }

  #newHost(owner: string): ToolHost {
    return {
      add: (tool) => {
        const held = this.#tools.get(tool.name);
        if (this.reserved(tool.name) || (held && held.owner !== owner)) {
          throw new Error(`Tool name ${tool.name} is already taken`);
        }
        checkToolName(tool.name);
        this.#tools.set(tool.name, { tool, owner });
      },
      remove: (name) => {
        if (this.#tools.get(name)?.owner !== owner) return false;
        return this.#tools.delete(name);
      },
      list: () =>
        [...this.#tools.entries()].filter(([, e]) => e.owner === owner).map(([name]) => name),
    };
  }
}
