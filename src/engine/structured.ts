/**
 * Structured answers (`--json-schema`, the `json_schema` field of POST /chat and of a job): the
 * turn's final answer must be one JSON value valid against a Draft 2020-12 schema. The schema is
 * compiled once with ajv (loaded on first use, so a run without a schema never loads it), told to
 * the model in a system message, sent as `response_format` where the backend takes it
 * (provider/response_format.ts), and every answer without tool calls is validated here; an invalid
 * one is answered with a repair request at most `retries` times.
 */
import { type ResponseFormat, responseFormatSupport } from "../provider/response_format.ts";
import type { TurnError } from "./events.ts";
import type { Ajv2020 as Ajv } from "ajv/dist/2020.js";

/** Repair requests after an invalid answer, unless given (`--json-retries`). */
export const DEFAULT_JSON_RETRIES = 2;
/** The most repair requests a turn may be given. */
export const MAX_JSON_RETRIES = 10;
/** Validation errors listed in a repair request or the turn's errors. */
const MAX_LISTED_ERRORS = 20;

/** A compiled answer schema. */
export interface AnswerSchema {
  /** The schema as given: a JSON object or a boolean. */
  readonly schema: Record<string, unknown> | boolean;
  /** The validation errors of `value` (`/path: message`); empty when it is valid. */
  validate(value: unknown): string[];
}

/** What a turn with a structured answer takes: the compiled schema and the repair budget. */
export interface StructuredAnswer {
  schema: AnswerSchema;
  /** Repair requests after an invalid answer (default 2). */
  retries?: number;
}

/** A value that is not a usable schema; the message names the problem. */
export class AnswerSchemaError extends Error {
  override name = "AnswerSchemaError";
}

interface AjvError {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * Parses schema text (inline JSON or a file's contents) and compiles it; throws an
 * AnswerSchemaError that says what is wrong.
 */
export function parseAnswerSchema(text: string, where = "the schema"): Promise<AnswerSchema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new AnswerSchemaError(`${where} is not valid JSON: ${(err as Error).message}`);
  }
  return compileAnswerSchema(value, where);
}

/** Compiles a schema value (Draft 2020-12); throws an AnswerSchemaError naming the problem. */
export async function compileAnswerSchema(
  value: unknown,
  where = "the schema",
): Promise<AnswerSchema> {
  if (typeof value !== "boolean" && (!value || typeof value !== "object" || Array.isArray(value))) {
    throw new AnswerSchemaError(`${where} must be a JSON object (or true/false)`);
  }
  const schema = value as Record<string, unknown> | boolean;
  const declared = typeof schema === "object" ? schema.$schema : undefined;
  if (
    declared !== undefined && !/^https?:\/\/json-schema\.org\/draft\/2020-12\//.test(`${declared}`)
  ) {
    throw new AnswerSchemaError(
      `${where} declares $schema ${JSON.stringify(declared)}; svc validates Draft 2020-12 ` +
        `(https://json-schema.org/draft/2020-12/schema): change or drop $schema`,
    );
  }
  // A CommonJS module: Deno's npm loader gives its named export, the installed build's bundle only
  // `default` (module.exports, which is the class itself and holds it as a property too).
  const loaded = await import("ajv/dist/2020.js") as unknown as {
    Ajv2020?: typeof Ajv;
    default?: { Ajv2020?: typeof Ajv };
  };
  const Ajv2020 = loaded.Ajv2020 ?? loaded.default?.Ajv2020 ?? (loaded.default as typeof Ajv);
  // strict off: keywords other tools add (x-*, examples of their own) are annotations; formats are
  // annotations too, as Draft 2020-12 has them by default.
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    validateFormats: false,
    logger: false,
  });
  if (!ajv.validateSchema(schema)) {
    throw new AnswerSchemaError(
      `${where} is not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`,
    );
  }
  let check: ((data: unknown) => boolean) & { errors?: AjvError[] | null };
  try {
    check = ajv.compile(schema);
  } catch (err) {
    throw new AnswerSchemaError(`${where} does not compile: ${(err as Error).message}`);
  }
  return {
    schema,
    validate: (data) => check(data) ? [] : (check.errors ?? []).map(describeError),
  };
}

function describeError(error: AjvError): string {
  const extra = error.params?.additionalProperty ?? error.params?.unevaluatedProperty;
  const detail = extra === undefined ? "" : ` (${JSON.stringify(extra)})`;
  return `${error.instancePath || "/"}: ${error.message ?? "is invalid"}${detail}`;
}

/** What svc makes of an answer: its value, a repair request to send, or the turn's errors. */
export type Verdict =
  | { kind: "valid"; value: unknown }
  | { kind: "repair"; message: string }
  | { kind: "invalid"; errors: TurnError[] };

/** The structured answer of one turn: the schema, the repairs spent, the valid value. */
export class StructuredTurn {
  #repairs = 0;
  /** The valid value, once an answer validated. */
  value: unknown = undefined;

  constructor(readonly spec: StructuredAnswer) {}

  /** The system message that tells the model the schema. */
  instruction(): string {
    return "Your final answer must be one JSON value valid against this JSON Schema (Draft " +
      "2020-12), and nothing else: no text before or after it and no code fence. Call tools " +
      "first if you need them.\n\n" + JSON.stringify(this.spec.schema.schema);
  }

  /** The `response_format` of a round for `provider`, when it takes one then. */
  responseFormat(provider: string, toolsOffered: boolean): ResponseFormat | undefined {
    const schema = this.spec.schema.schema;
    // The backends take an object schema at the root only; anything else goes by the prompt.
    if (typeof schema !== "object" || schema.type !== "object") return undefined;
    const support = responseFormatSupport(provider);
    if (support === "never" || (support === "without_tools" && toolsOffered)) return undefined;
    const title = typeof schema.title === "string" ? schema.title : "";
    const name = title.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 64) || "answer";
    return { type: "json_schema", json_schema: { name, schema, strict: strictFits(schema) } };
  }

  /** Judges an answer without tool calls. */
  judge(content: string): Verdict {
    const parsed = parseAnswer(content);
    const errors = "value" in parsed
      ? this.spec.schema.validate(parsed.value)
      : [`not valid JSON: ${parsed.problem}`];
    if (!errors.length) {
      this.value = (parsed as { value: unknown }).value;
      return { kind: "valid", value: this.value };
    }
    const listed = errors.slice(0, MAX_LISTED_ERRORS);
    if (errors.length > listed.length) listed.push(`... ${errors.length - listed.length} more`);
    if (this.#repairs < (this.spec.retries ?? DEFAULT_JSON_RETRIES)) {
      this.#repairs++;
      return { kind: "repair", message: repairRequest(listed) };
    }
    const at = new Date().toISOString();
    return {
      kind: "invalid",
      errors: listed.map((message) => ({ code: "schema_invalid", message, at })),
    };
  }
}

/** The user message that asks for a corrected answer. */
function repairRequest(errors: string[]): string {
  return "Your answer does not validate against the JSON Schema:\n" +
    errors.map((e) => `- ${e}`).join("\n") +
    "\n\nAnswer again with only the corrected JSON value: no other text, no code fence.";
}

/** The answer as JSON: the whole text, or the body of a ```json fence in it. */
export function parseAnswer(content: string): { value: unknown } | { problem: string } {
  const text = content.trim();
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    const fenced = /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```/.exec(text);
    if (fenced) {
      try {
        return { value: JSON.parse(fenced[1]) };
      } catch { /* the whole text's problem is the one reported */ }
    }
    return { problem: text ? (err as Error).message : "the answer is empty" };
  }
}

/**
 * Whether OpenAI's strict mode takes the schema: every object closed (`additionalProperties:
 * false`) with all its properties required, throughout. A schema that does not fit is sent with
 * `strict: false` rather than refused by the backend.
 */
function strictFits(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(strictFits);
  if (!schema || typeof schema !== "object") return true;
  const node = schema as Record<string, unknown>;
  if (node.type === "object" || node.properties) {
    const keys = Object.keys((node.properties ?? {}) as object);
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false) return false;
    if (!keys.every((k) => required.includes(k))) return false;
  }
  return Object.entries(node).every(([key, child]) =>
    key === "enum" || key === "const" || key === "default" || key === "examples" ||
    strictFits(child)
  );
}
