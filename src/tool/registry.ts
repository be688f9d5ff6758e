import { z } from "zod";
import type { Tool } from "./types.ts";
import type { ToolSchema } from "../provider/types.ts";

/** Tools by canonical name, with call-time aliases. A later registration of a name wins. */
export class ToolRegistry {
  #tools = new Map<string, Tool>();
  #aliases = new Map<string, string>();
  #schemas = new Map<string, ToolSchema>();

  /** Registers a tool and its aliases. */
  add(tool: Tool): void {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(tool.name)) {
      throw new Error(`Tool name "${tool.name}" must be 1-64 letters, digits, _ . or -`);
    }
    this.#tools.set(tool.name, tool);
    this.#schemas.delete(tool.name);
    for (const alias of tool.aliases ?? []) this.#aliases.set(alias, tool.name);
  }

  /** Removes a tool (for example when an MCP server disconnects). */
  remove(name: string): void {
    this.#tools.delete(name);
    this.#schemas.delete(name);
    for (const [alias, target] of this.#aliases) if (target === name) this.#aliases.delete(alias);
  }

  /** Finds a tool by canonical name or alias; canonical names win over aliases. */
  resolve(name: string): Tool | undefined {
    const direct = this.#tools.get(name) ?? this.#tools.get(this.#aliases.get(name) ?? "");
    if (direct) return direct;
    const lower = name.toLowerCase();
    return this.#tools.get(lower) ?? this.#tools.get(this.#aliases.get(lower) ?? "");
  }

  /** All tools, in registration order. */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** The function schema advertised to the model (canonical name only), cached per tool. */
  schemaOf(tool: Tool): ToolSchema {
    let schema = this.#schemas.get(tool.name);
    if (!schema) {
      const parameters = z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>;
      delete parameters.$schema;
      stripSafeIntegerBounds(parameters);
      schema = {
        type: "function",
        function: { name: tool.name, description: tool.description, parameters },
      };
      this.#schemas.set(tool.name, schema);
    }
    return schema;
  }
}

/** zod adds ±(2^53 - 1) bounds to every integer; they carry no meaning and cost schema bytes. */
function stripSafeIntegerBounds(node: unknown): void {
  if (!node || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  for (const value of Object.values(record)) stripSafeIntegerBounds(value);
}
