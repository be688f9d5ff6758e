/**
 * The structured-answer flags of `svc run`: `--json-schema <inline JSON|@file>`, its alias
 * `--output-schema <file>` (Codex's name; a path) and `--json-retries <n>`. The schema is compiled
 * here, before any request, so a bad one is a usage error that names the problem.
 */
import {
  AnswerSchemaError,
  DEFAULT_JSON_RETRIES,
  loadAnswerSchema,
  MAX_JSON_RETRIES,
  type StructuredAnswer,
} from "../runtime/structured.ts";
import { wholeNumberOrNull } from "./flags.ts";

/** The flags this reads. */
export interface StructuredFlags {
  jsonSchema?: string;
  outputSchema?: string;
  jsonRetries?: string;
  team?: string;
}

/** What the flags ask for: nothing, a compiled schema and its repair budget, or a usage problem. */
export async function structuredOf(
  flags: StructuredFlags,
): Promise<{ structured?: StructuredAnswer } | { problem: string }> {
  const { jsonSchema, outputSchema, jsonRetries } = flags;
  if (jsonSchema === undefined && outputSchema === undefined) {
    return jsonRetries === undefined ? {} : { problem: "--json-retries needs --json-schema" };
  }
  if (jsonSchema !== undefined && outputSchema !== undefined) {
    return { problem: "give --json-schema or --output-schema, not both" };
  }
  if (flags.team) {
    return { problem: "--json-schema applies to one turn and cannot be combined with --team" };
  }
  const retries = jsonRetries === undefined
    ? DEFAULT_JSON_RETRIES
    : wholeNumberOrNull(jsonRetries, 0, MAX_JSON_RETRIES);
  if (retries === null) {
    return { problem: `--json-retries takes a whole number from 0 to ${MAX_JSON_RETRIES}` };
  }
  try {
    const schema = outputSchema !== undefined
      ? await loadAnswerSchema(outputSchema, { flag: "--output-schema", file: true })
      : await loadAnswerSchema(jsonSchema!, { flag: "--json-schema" });
    return { structured: { schema, retries } };
  } catch (err) {
    if (err instanceof AnswerSchemaError) return { problem: err.message };
    throw err;
  }
}
