import { z } from "zod";
import type { Tool, ToolSchema } from "./types.ts";

/** Function schemas by tool object: computed once per tool, shared by every view. */
const schemas = new WeakMap<Tool, ToolSchema>();

/**
 * Tools by canonical name, with call-time aliases; a later registration of a name wins. The
 * base registry is built once from the plugins and sealed; each turn gets a view of it with the
 * tools of other sources (`with`).
 */
export class ToolRegistry {
  #tools = new Map<string, Tool>();
  #aliases = new Map<string, string>();
  #sealed = false;

  /** Registers a tool and its aliases. */
  add(tool: Tool): void {
    if (this.#sealed) throw new Error(`Tool ${tool.name} added to a sealed registry`);
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(tool.name)) {
      throw new Error(`Tool name "${tool.name}" must be 1-64 letters, digits, _ . or -`);
    }
    this.#tools.set(tool.name, tool);
    for (const alias of tool.aliases ?? []) this.#aliases.set(alias, tool.name);
  }

  /** Forbids further changes; returns this registry. */
  seal(): this {
    this.#sealed = true;
    return this;
  }

  /** A new, sealed registry holding these tools and then `extra` (the per-turn view). */
  with(extra: readonly Tool[]): ToolRegistry {
    const view = new ToolRegistry();
    view.#tools = new Map(this.#tools);
    view.#aliases = new Map(this.#aliases);
    for (const tool of extra) view.add(tool);
    return view.seal();
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
    let schema = schemas.get(tool);
    if (!schema) {
      const parameters = z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>;
      delete parameters.$schema;
      stripSafeIntegerBounds(parameters);
      schema = {
        type: "function",
        function: { name: tool.name, description: tool.description, parameters },
      };
      schemas.set(tool, schema);
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
