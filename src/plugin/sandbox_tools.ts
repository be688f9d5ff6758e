/**
 * svc's side of a sandboxed plugin's registrations: tools and commands rebuilt from the data the
 * Worker sent, with `run` posting a message. The argument schema is rebuilt from its JSON schema
 * (zod's `fromJSONSchema`), so svc validates and coerces arguments and advertises the schema as it
 * does for any tool; the Worker validates again with the plugin's own zod schema before `run`
 * (refinements and transforms have no JSON form). Regular-expression `pattern`s are left to the
 * Worker: a plugin's pattern never runs in svc's thread, where a catastrophic one could stall it.
 */
import * as z from "zod";
import { CATEGORIES, type Category } from "../shared/types.ts";
import { HOOK_EVENTS, type HookEvent, type PluginHookDef } from "../tool/hooks.ts";
import type { Tool, ToolContext, ToolOutput } from "../tool/types.ts";
import type { CommandDef } from "./api.ts";
import type { CommandData, HookData, ToolData } from "./sandbox_protocol.ts";

/** Largest JSON schema of one tool's arguments, in characters. */
export const MAX_SCHEMA_CHARS = 64 * 1024;
/** Deepest nesting of that schema. */
const MAX_SCHEMA_DEPTH = 32;

/** What a rebuilt tool or command calls into. */
export interface SandboxChannel {
  callTool(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
  runCommand(name: string, args: string, io: { print(text: string): void }): Promise<void>;
  /** Runs hook `id` in the plugin; resolves with what a hook command would print. */
  runHook(id: number, input: Record<string, unknown>): Promise<string>;
}

/** A tool of a sandboxed plugin; throws (naming the tool) when its data is not acceptable. */
export function sandboxedTool(data: ToolData, channel: SandboxChannel): Tool {
  const refuse = (why: string) => new Error(`Invalid tool ${String(data?.name)}: ${why}`);
  if (typeof data?.name !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(data.name)) {
    throw refuse("the name must be 1-64 letters, digits, _ . or -");
  }
  if (!CATEGORIES.includes(data.category as Category)) {
    throw refuse(`category must be one of ${CATEGORIES.join(", ")}`);
  }
  const name = data.name;
  const strings = (value: unknown, what: string) => {
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
      throw refuse(`${what} must be a list of strings`);
    }
    return value as string[];
  };
  const aliases = strings(data.aliases, "aliases");
  const pathArgs = strings(data.pathArgs, "pathArgs");
  const argAliases = data.argAliases;
  if (
    argAliases !== undefined &&
    (typeof argAliases !== "object" || argAliases === null ||
      Object.values(argAliases).some((v) => typeof v !== "string"))
  ) throw refuse("argAliases must map names to names");
  let schema: z.ZodObject;
  try {
    schema = schemaFromJson(data.inputSchema);
  } catch (err) {
    throw refuse(`its argument schema cannot be used: ${(err as Error).message}`);
  }
  return {
    name,
    category: data.category as Category,
    description: String(data.description),
    schema,
    ...(aliases ? { aliases } : {}),
    ...(argAliases ? { argAliases } : {}),
    ...(pathArgs ? { pathArgs } : {}),
    run: (args, ctx) => channel.callTool(name, args, ctx),
  };
}

/** A slash command of a sandboxed plugin. */
export function sandboxedCommand(data: CommandData, channel: SandboxChannel): CommandDef {
  if (typeof data?.name !== "string" || data.name === "") {
    throw new Error(`Invalid command: "name" must be a non-empty string`);
  }
  return {
    name: data.name,
    description: String(data.description ?? ""),
    run: (args, io) => channel.runCommand(data.name, args, io),
  };
}

/**
 * A hook of a sandboxed plugin: its data checked, its `run` a message to the plugin's Worker whose
 * answer is read as a hook command's stdout is (a JSON object, text, or nothing).
 */
export function sandboxedHook(data: HookData, channel: SandboxChannel): PluginHookDef {
  const refuse = (why: string) => new Error(`Invalid hook ${String(data?.event)}: ${why}`);
  if (!Number.isInteger(data?.id) || data.id < 0) throw refuse(`"id" must be a whole number`);
  if (!(HOOK_EVENTS as readonly string[]).includes(data.event)) {
    throw refuse(`unknown event; events: ${HOOK_EVENTS.join(", ")}`);
  }
  if (
    data.matcher !== undefined && (typeof data.matcher !== "string" || data.matcher.length > 1000)
  ) {
    throw refuse(`"matcher" must be a string of at most 1000 characters`);
  }
  if (data.timeout !== undefined && !(typeof data.timeout === "number" && data.timeout > 0)) {
    throw refuse(`"timeout" must be a number of seconds above 0`);
  }
  if (data.fail_closed !== undefined && typeof data.fail_closed !== "boolean") {
    throw refuse(`"fail_closed" must be true or false`);
  }
  const { id } = data;
  return {
    event: data.event as HookEvent,
    ...(data.matcher !== undefined ? { matcher: data.matcher } : {}),
    ...(data.timeout !== undefined ? { timeout: data.timeout } : {}),
    ...(data.fail_closed !== undefined ? { fail_closed: data.fail_closed } : {}),
    run: async (input) => printedValue(await channel.runHook(id, input)),
  };
}

/** What a hook printed, as the value it stands for: nothing, a JSON object or text. */
function printedValue(printed: string): unknown {
  const text = printed.trim();
  if (!text) return undefined;
  if (!text.startsWith("{")) return text;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`printed invalid JSON: ${(err as Error).message}`);
  }
}

/** A zod object schema from a tool's JSON schema, within size and depth limits. */
export function schemaFromJson(json: unknown): z.ZodObject {
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    throw new Error("not a JSON schema object");
  }
  if (JSON.stringify(json).length > MAX_SCHEMA_CHARS) {
    throw new Error(`larger than ${MAX_SCHEMA_CHARS / 1024} KiB`);
  }
  const parsed = z.fromJSONSchema(withoutPatterns(json, 0) as z.core.JSONSchema.JSONSchema);
  if (!(parsed instanceof z.ZodObject)) throw new Error("not an object schema");
  // A plain object (unknown arguments dropped), as the zod objects of in-process tools.
  return z.object(parsed.shape);
}

/** Keywords whose value maps names (argument names, definitions) to schemas. */
const NAMED = new Set(["properties", "$defs", "definitions", "dependentSchemas"]);

/**
 * A copy without the `pattern` and `patternProperties` keywords (an argument named `pattern`
 * stays); throws past the depth limit.
 */
function withoutPatterns(node: unknown, depth: number, named = false): unknown {
  if (depth > MAX_SCHEMA_DEPTH) throw new Error(`nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  if (Array.isArray(node)) return node.map((item) => withoutPatterns(item, depth + 1));
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!named && (key === "pattern" || key === "patternProperties")) continue;
    out[key] = withoutPatterns(value, depth + 1, !named && NAMED.has(key));
  }
  return out;
}
