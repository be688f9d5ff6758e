import { openedStartMemo, startMemo } from "../launch/start_memo.ts";
import { argSchema, loadZod, needsZod } from "./arg_schema.ts";
import type { Tool, ToolSchema } from "./types.ts";
import { assignWireNames, checkToolName } from "./wire_name.ts";

/** Function schemas by tool object, with the wire name they were built for; shared by views. */
const schemas = new WeakMap<Tool, ToolSchema>();

/**
 * Tools by canonical name, with call-time aliases; a later registration of a name wins. The
 * base registry is built once from the plugins and sealed; each turn gets a view of it with the
 * tools of other sources (`with`). Each tool also has a wire name, the name backends see (see
 * wire_name.ts); calls resolve by any of the three.
 */
export class ToolRegistry {
  #tools = new Map<string, Tool>();
  #aliases = new Map<string, string>();
  #sealed = false;
  /** Wire names by canonical name and canonical names by wire name; computed on first use. */
  #wire?: { byName: Map<string, string>; byWire: Map<string, string> };

  /** Registers a tool and its aliases. */
  add(tool: Tool): void {
    if (this.#sealed) throw new Error(`Tool ${tool.name} added to a sealed registry`);
    checkToolName(tool.name);
    this.#tools.set(tool.name, tool);
    for (const alias of tool.aliases ?? []) this.#aliases.set(alias, tool.name);
    this.#wire = undefined;
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

  /** Finds a tool by canonical name, alias or wire name, in that order of precedence. */
  resolve(name: string): Tool | undefined {
    return this.#lookup(name) ?? this.#lookup(name.toLowerCase());
  }

  #lookup(name: string): Tool | undefined {
    const canonical = this.#tools.has(name)
      ? name
      : this.#aliases.get(name) ?? this.#wireNames().byWire.get(name);
    return this.#tools.get(canonical ?? "");
  }

  /** The name a tool of this view goes by on the wire; unknown names come back unchanged. */
  wireName(name: string): string {
    return this.#wireNames().byName.get(name) ?? name;
  }

  #wireNames(): { byName: Map<string, string>; byWire: Map<string, string> } {
    if (!this.#wire) {
      const taken = new Set([...this.#tools.keys(), ...this.#aliases.keys()]);
      const byName = assignWireNames(this.#tools.keys(), taken);
      const byWire = new Map([...byName].map(([name, wire]) => [wire, name]));
      this.#wire = { byName, byWire };
    }
    return this.#wire;
  }

  /** All tools, in registration order. */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /**
   * The function schema advertised to the model, under the tool's wire name in this view (its
   * canonical name unless that has a dot or is too long), cached per tool.
   */
  schemaOf(tool: Tool): ToolSchema {
    const name = this.wireName(tool.name);
    let schema = schemas.get(tool);
    if (!schema) {
      schema = {
        type: "function",
        function: { name, description: tool.description, parameters: parametersOf(tool) },
      };
      schemas.set(tool, schema);
    } else if (schema.function.name !== name) {
      // The same tool under another wire name in another view (a collision there): rare.
      schema = { type: "function", function: { ...schema.function, name } };
    }
    return schema;
  }
}

/**
 * Makes the advertised schemas of `tools` available without zod where an installed build
 * remembers them (start_memo.ts); loads zod, builds the others and remembers them otherwise.
 * `schemaOf` needs this first for tools whose zod schema is a builder (`Runtime.load` and each
 * turn see to it).
 */
export async function prepareSchemas(tools: readonly Tool[]): Promise<void> {
  const memo = await startMemo();
  if (!memo.enabled) {
    // Nothing is remembered (the source tree): `schemaOf` derives each schema once, with zod.
    if (tools.some(needsZod)) await loadZod();
    return;
  }
  const missing = tools.filter((tool) => {
    const key = memoKey(tool);
    return key !== null && memo.get(PARAMETERS, key) === undefined;
  });
  if (!missing.length) return;
  if (missing.some(needsZod)) await loadZod();
  await memo.remember(PARAMETERS, missing.map((tool) => [memoKey(tool)!, derived(tool)]));
}

/** The memo kind of advertised argument schemas. */
const PARAMETERS = "tool_parameters";

/** A builder's tool is remembered under its name and the builder's source (one build's code). */
function memoKey(tool: Tool): string | null {
  return !tool.parameters && typeof tool.schema === "function"
    ? `${tool.name}\0${String(tool.schema)}`
    : null;
}

/** The JSON schema of a tool's arguments: its own `parameters`, else derived from `schema`. */
function parametersOf(tool: Tool): Record<string, unknown> {
  if (tool.parameters) return tool.parameters;
  const key = memoKey(tool);
  const known = key === null ? undefined : openedStartMemo()?.get(PARAMETERS, key);
  return known ? structuredClone(known) as Record<string, unknown> : derived(tool);
}

function derived(tool: Tool): Record<string, unknown> {
  const parameters = argSchema(tool).toJSONSchema({ io: "input" }) as Record<string, unknown>;
  delete parameters.$schema;
  stripSafeIntegerBounds(parameters);
  return parameters;
}

/** zod adds ±(2^53 - 1) bounds to every integer; they carry no meaning and cost schema bytes. */
function stripSafeIntegerBounds(node: unknown): void {
  if (!node || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  for (const value of Object.values(record)) stripSafeIntegerBounds(value);
}
