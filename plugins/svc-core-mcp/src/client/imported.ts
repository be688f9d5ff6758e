/**
 * An MCP server's tool as an svc tool. Servers are untrusted: a listing is read as data, each
 * definition is checked and size-capped, descriptions only ever reach the model as the
 * description of their own function (never the system prompt), and what does not fit is
 * skipped with a reason the user sees in mcp_connect and mcp_list.
 */
import * as z from "zod";
import type { McpToolDef } from "./types.ts";
import { cutText } from "../../../../src/tool/text.ts";

/** At most this many tools are imported from one server. */
export const MAX_TOOLS = 256;
/** Characters of a tool description kept. */
export const MAX_DESCRIPTION = 2000;
/** Bytes of an input schema (as JSON) accepted. */
export const MAX_SCHEMA_BYTES = 16 * 1024;
/** What a server's tool name may look like (MCP's rule). */
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
/** svc's own limit on a tool name, `<prefix>.<tool>` included. */
const MAX_NAME = 128;

/** A definition that passed the checks: what svc advertises and validates with. */
export interface Accepted {
  /** The server's name for it. */
  remote: string;
  /** `<prefix>.<tool>`. */
  name: string;
  description: string;
  /** The server's input schema without `$schema`; advertised as is. */
  parameters: Record<string, unknown>;
  /** Validates and filters the arguments before a call (undeclared ones are dropped). */
  schema: z.ZodObject;
  /** Canonical JSON of the definition as listed, to notice a change after connect. */
  fingerprint: string;
}

/** The outcome of reading one listing. */
export interface Plan {
  accepted: Accepted[];
  /** `"<tool>": <reason>` for each tool not imported. */
  skipped: string[];
}

/** Checks every listed tool; `prefix` makes the canonical names. */
export function planImport(
  listed: unknown[],
  { prefix, server }: { prefix: string; server: string },
): Plan {
  const plan: Plan = { accepted: [], skipped: [] };
  const seen = new Set<string>();
  for (const [index, raw] of listed.entries()) {
    const label = typeof (raw as McpToolDef)?.name === "string"
      ? JSON.stringify((raw as McpToolDef).name.slice(0, 140))
      : `#${index + 1}`;
    if (plan.accepted.length >= MAX_TOOLS) {
      plan.skipped.push(`${listed.length - index} more tools: over the limit of ${MAX_TOOLS}`);
      break;
    }
    const checked = accept(prefix, server, raw);
    if (typeof checked === "string") plan.skipped.push(`${label}: ${checked}`);
    else if (seen.has(checked.name)) plan.skipped.push(`${label}: listed twice`);
    else {
      seen.add(checked.name);
      plan.accepted.push(checked);
    }
  }
  return plan;
}

/** A definition as an `Accepted`, or why it is skipped. */
function accept(prefix: string, server: string, raw: unknown): Accepted | string {
  if (!raw || typeof raw !== "object") return "not a tool definition";
  const def = raw as McpToolDef;
  if (typeof def.name !== "string" || !MCP_TOOL_NAME.test(def.name)) {
    return "name is not 1-128 letters, digits, _ . or -";
  }
  const name = `${prefix}.${def.name}`;
  if (name.length > MAX_NAME) return `${name} is longer than ${MAX_NAME} characters`;
  const input = def.inputSchema;
  if (!input || typeof input !== "object" || Array.isArray(input) || input.type !== "object") {
    return 'inputSchema is not a JSON schema of type "object"';
  }
  const json = JSON.stringify(input);
  const bytes = new TextEncoder().encode(json).length;
  if (bytes > MAX_SCHEMA_BYTES) {
    return `inputSchema is ${bytes} bytes, over the limit of ${MAX_SCHEMA_BYTES}`;
  }
  const parameters = JSON.parse(json) as Record<string, unknown>;
  delete parameters.$schema;
  return {
    remote: def.name,
    name,
    description: describe(server, def.description),
    parameters,
    schema: argumentSchema(parameters),
    fingerprint: canonicalJson({
      description: def.description ?? null,
      inputSchema: input,
      outputSchema: def.outputSchema ?? null,
    }),
  };
}

/** The description the model sees: who provides the tool, then the server's words, capped. */
function describe(server: string, text: unknown): string {
  // Control characters other than newline and tab carry nothing a model should read.
  const clean = typeof text === "string" ? text.replace(CONTROL, "") : "";
  const capped = clean.length > MAX_DESCRIPTION
    ? `${cutText(clean, MAX_DESCRIPTION)}... (description cut at ${MAX_DESCRIPTION} characters)`
    : clean;
  return `[MCP server ${server}] ${capped.trim() || "(no description)"}`;
}

/**
 * A zod object over the schema's top-level properties: each converted by zod's own
 * `fromJSONSchema` (with the root's definitions, so `$ref`s resolve) where it can, else any
 * value; required ones required. Deeper checks stay with the server.
 */
export function argumentSchema(parameters: Record<string, unknown>): z.ZodObject {
  const properties = isRecord(parameters.properties) ? parameters.properties : {};
  const required = new Set(
    Array.isArray(parameters.required)
      ? parameters.required.filter((k) => typeof k === "string")
      : [],
  );
  const defs = {
    ...(isRecord(parameters.$defs) ? { $defs: parameters.$defs } : {}),
    ...(isRecord(parameters.definitions) ? { definitions: parameters.definitions } : {}),
  };
  const shape: Record<string, z.ZodType> = {};
  for (const [key, property] of Object.entries(properties)) {
    let field: z.ZodType;
    try {
      field = isRecord(property)
        ? z.fromJSONSchema({ ...property, ...defs } as Parameters<typeof z.fromJSONSchema>[0])
        : z.unknown();
    } catch {
      field = z.unknown();
    }
    shape[key] = required.has(key) ? field : field.optional();
  }
  return z.object(shape);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value);
}

/** JSON with object keys sorted, so equal definitions compare equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : 1)) : v,
  );
}
