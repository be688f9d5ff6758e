import { argSchema } from "./arg_schema.ts";
import type { Tool } from "./types.ts";
import type { ToolRegistry } from "./registry.ts";

/** Argument aliases from SPEC: applied when the alias is undeclared and its target declared. */
export const ARG_ALIASES: Readonly<Record<string, string>> = {
  file: "path",
  query: "pattern",
  cmd: "command",
  q: "query",
  cursor: "offset",
  old_text: "old",
  new_text: "new",
};

export type NormalizedCall =
  | { ok: true; tool: Tool; args: Record<string, unknown> }
  | { ok: false; tool?: Tool; error: string };

/**
 * Resolves a model's tool call to a canonical tool and validated arguments: aliases resolved,
 * argument aliases mapped, undeclared and null arguments dropped, numeric and boolean strings
 * coerced when the schema wants them. Failures come back as text for the model. A schema given
 * as a builder needs `loadZod()` to have resolved (`invokeTool` sees to it).
 */
export function normalizeToolCall(
  registry: ToolRegistry,
  { name, rawArguments, available }: {
    /** The tool name as the model wrote it. */
    name: string;
    /** The arguments as the model sent them: a JSON text. */
    rawArguments: string;
    /** The tools offered this turn. */
    available: readonly string[];
  },
): NormalizedCall {
  const tool = registry.resolve(name);
  if (!tool || !available.includes(tool.name)) {
    // Named as the model was offered them: the wire names, which every backend accepts.
    const names = available.map((offered) => registry.wireName(offered)).join(", ");
    return { ok: false, error: `Error: unknown tool "${name}". Available tools: ${names}` };
  }
  let parsed: unknown = {};
  if (rawArguments.trim()) {
    try {
      parsed = JSON.parse(rawArguments);
    } catch (err) {
      return {
        ok: false,
        tool,
        error: `Error: arguments for ${tool.name} are not valid JSON (${
          (err as Error).message
        }); send one JSON object`,
      };
    }
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { ok: false, tool, error: `Error: arguments for ${tool.name} must be a JSON object` };
  }
  const schema = argSchema(tool);
  const shape = schema.shape as Record<string, unknown>;
  const aliases = { ...ARG_ALIASES, ...tool.argAliases };
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (value === null || value === undefined) continue;
    const target = key in shape ? key : aliases[key];
    if (!target || !(target in shape) || target in args && key !== target) continue;
    args[target] = value;
  }
  let result = schema.safeParse(args);
  if (!result.success) {
    const failing = new Set(result.error.issues.map((i) => String(i.path[0])));
    result = schema.safeParse(coerce(args, failing));
  }
  if (!result.success) {
    const issues = result.error.issues.map((i) =>
      `${i.path.join(".") || "arguments"}: ${i.message}`
    );
    return {
      ok: false,
      tool,
      error: `Error: invalid arguments for ${tool.name}: ${issues.join("; ")}`,
    };
  }
  return { ok: true, tool, args: result.data as Record<string, unknown> };
}

function coerce(args: Record<string, unknown>, keys: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (!keys.has(key)) out[key] = value;
    else if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim())) {
      out[key] = Number(value);
    } else if (value === "true" || value === "false") out[key] = value === "true";
    else out[key] = value;
  }
  return out;
}
