/**
 * The form of an MCP server's question (`elicitation/create`, form mode: a flat object of
 * primitive fields) and the checks an answer must pass: the REPL applies them to each of the
 * person's typed answers, and the configured approver's content passes the same ones
 * (elicitation_approver.ts), so neither can hand a server a value its form does not allow.
 */

/** One field of a form (`requestedSchema.properties.<name>`). */
export interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: Array<{ const: unknown; title?: string }>;
  items?: { enum?: unknown[]; anyOf?: Array<{ const: unknown; title?: string }> };
  minimum?: number;
  maximum?: number;
}

/** A form (`requestedSchema`). */
export interface FormSchema {
  properties?: Record<string, FieldSchema>;
  required?: string[];
}

/** A value a form field takes. */
export type FieldValue = string | number | boolean | string[];

/** One choice of an enum, a multi-select or a boolean (yes/no). */
export type Choice = { value: string; label: string };

/** The choices of a field, or undefined for free text and numbers. */
export function choicesOf(field: FieldSchema): Choice[] | undefined {
  const list = field.oneOf ?? field.items?.anyOf;
  if (list) return list.map((c) => ({ value: String(c.const), label: c.title ?? String(c.const) }));
  const values = field.enum ?? field.items?.enum;
  if (values) {
    return values.map((v, i) => ({ value: String(v), label: field.enumNames?.[i] ?? String(v) }));
  }
  if (field.type === "boolean") {
    return [{ value: "true", label: "yes" }, { value: "false", label: "no" }];
  }
  return undefined;
}

/** Reads one typed answer (non-empty text) for `field`: the value, or why it does not fit. */
export function parseField(
  text: string,
  field: FieldSchema,
  choices: Choice[] | undefined = choicesOf(field),
): { ok: true; value: FieldValue } | { ok: false; error: string } {
  const pick = (word: string) =>
    choices?.find((c) => c.label.toLowerCase() === word.toLowerCase() || c.value === word)?.value;
  if (field.type === "array") {
    const picked = text.split(",").map((part) => pick(part.trim()));
    if (picked.some((value) => value === undefined)) {
      return { ok: false, error: "Pick from the list" };
    }
    return { ok: true, value: picked as string[] };
  }
  if (field.type === "boolean") {
    const value = pick(text) ??
      ({ y: "true", n: "false" } as Record<string, string>)[text[0]?.toLowerCase()];
    return value === undefined
      ? { ok: false, error: "Answer yes or no" }
      : { ok: true, value: value === "true" };
  }
  if (choices) {
    const value = pick(text);
    return value === undefined
      ? { ok: false, error: "Pick one from the list" }
      : { ok: true, value };
  }
  if (field.type === "number" || field.type === "integer") return parseNumber(text, field);
  return { ok: true, value: text };
}

function parseNumber(
  text: string,
  field: FieldSchema,
): { ok: true; value: number } | { ok: false; error: string } {
  const value = Number(text);
  const whole = field.type === "integer" ? Number.isInteger(value) : Number.isFinite(value);
  if (!whole) {
    return {
      ok: false,
      error: `Answer with ${field.type === "integer" ? "a whole number" : "a number"}`,
    };
  }
  if (
    (field.minimum !== undefined && value < field.minimum) ||
    (field.maximum !== undefined && value > field.maximum)
  ) {
    return {
      ok: false,
      error: `Answer between ${field.minimum ?? "-∞"} and ${field.maximum ?? "∞"}`,
    };
  }
  return { ok: true, value };
}

/**
 * Checks a whole answer given at once (an approver's `content`) against `schema`: only the form's
 * fields, each of its JSON type and passing `parseField`; a missing required field takes its
 * default (as the person's empty answer does) or fails. Returns the content to send, or why not.
 */
export function checkContent(
  schema: FormSchema | undefined,
  content: unknown,
): { ok: true; content: Record<string, FieldValue> } | { ok: false; error: string } {
  if (!content || typeof content !== "object" || Array.isArray(content)) {
    return { ok: false, error: "the content is not a JSON object" };
  }
  const fields = schema?.properties ?? {};
  const checked: Record<string, FieldValue> = {};
  for (const [key, value] of Object.entries(content)) {
    if (!Object.hasOwn(fields, key)) {
      return { ok: false, error: `"${key}" is not a field of the form` };
    }
    const text = asText(value, fields[key]);
    if (text === undefined) {
      return { ok: false, error: `"${key}" is not ${article(fields[key].type ?? "string")}` };
    }
    const parsed = parseField(text, fields[key]);
    if (!parsed.ok) return { ok: false, error: `"${key}": ${parsed.error}` };
    checked[key] = parsed.value;
  }
  for (const key of schema?.required ?? []) {
    if (key in checked || !Object.hasOwn(fields, key)) continue;
    if (fields[key].default === undefined) return { ok: false, error: `"${key}" is required` };
    checked[key] = fields[key].default as FieldValue;
  }
  return { ok: true, content: checked };
}

/** The value as the text the person would type, when it has the field's JSON type. */
function asText(value: unknown, field: FieldSchema): string | undefined {
  switch (field.type) {
    case "array":
      return Array.isArray(value) && value.length && value.every((v) => typeof v === "string")
        ? value.join(",")
        : undefined;
    case "boolean":
      return typeof value === "boolean" ? String(value) : undefined;
    case "number":
    case "integer":
      return typeof value === "number" ? String(value) : undefined;
    default:
      return typeof value === "string" ? value : undefined;
  }
}

function article(type: string): string {
  return type === "array" ? "a list of strings" : type === "integer" ? "an integer" : `a ${type}`;
}
