/**
 * Structured answers for the front-ends: a `--json-schema` argument (inline JSON or `@file`), an
 * `--output-schema` file, or a schema value from a request body or a job, compiled into what
 * `runTurn` takes. Small on purpose: the validator itself is loaded only when a schema is compiled.
 */
import { resolve } from "../util/posix_path.ts";
import {
  type AnswerSchema,
  AnswerSchemaError,
  compileAnswerSchema,
  DEFAULT_JSON_RETRIES,
  MAX_JSON_RETRIES,
  parseAnswerSchema,
  type StructuredAnswer,
} from "../engine/structured.ts";

export {
  type AnswerSchema,
  AnswerSchemaError,
  compileAnswerSchema,
  DEFAULT_JSON_RETRIES,
  MAX_JSON_RETRIES,
  type StructuredAnswer,
};

/**
 * The schema of `--json-schema <inline JSON|@file>` (`file` set: `--output-schema <file>`, a path
 * without the `@`); a relative path is taken from `cwd`. Throws an AnswerSchemaError naming the
 * flag and the problem: an unreadable file, text that is not JSON, a value that is not a schema.
 */
export async function loadAnswerSchema(
  arg: string,
  { flag, file = false, cwd = Deno.cwd() }: { flag: string; file?: boolean; cwd?: string },
): Promise<AnswerSchema> {
  const path = file ? arg : arg.startsWith("@") ? arg.slice(1) : null;
  if (path === null) return await parseAnswerSchema(arg, `${flag}`);
  if (!path) throw new AnswerSchemaError(`${flag}: give a file after @`);
  let text: string;
  try {
    text = await Deno.readTextFile(resolve(cwd, path));
  } catch (err) {
    throw new AnswerSchemaError(`${flag}: cannot read ${path}: ${(err as Error).message}`);
  }
  return await parseAnswerSchema(text, `${flag} ${path}`);
}

/** A repair budget from a flag, a body or a job: a whole number 0..MAX_JSON_RETRIES, or a problem. */
export function jsonRetriesProblem(value: unknown, name: string): string | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 &&
      value <= MAX_JSON_RETRIES
    ? null
    : `${name} must be a whole number from 0 to ${MAX_JSON_RETRIES}`;
}
