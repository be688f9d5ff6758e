/**
 * The zod a tool's schema builder is given (arg_schema.ts): zod's schema constructors, listed,
 * not zod's whole namespace. A namespace that is passed around as a value keeps every export
 * reachable, so the bundler must keep all of zod's 60-odd locales (about 500 KB of the build),
 * and every process that validates anything with zod loaded them: a `svc run` with one tool call
 * 10 ms longer, `svc serve`'s first tool call likewise (docs/performance.md, tenth round).
 * tests/cli/bundle.test.ts fails when a build holds another locale than English again.
 */
import * as z from "zod";

/** zod's schema constructors, by their zod names. */
export const zodApi = {
  object: z.object,
  strictObject: z.strictObject,
  looseObject: z.looseObject,
  string: z.string,
  number: z.number,
  int: z.int,
  boolean: z.boolean,
  enum: z.enum,
  literal: z.literal,
  array: z.array,
  tuple: z.tuple,
  record: z.record,
  union: z.union,
  discriminatedUnion: z.discriminatedUnion,
  optional: z.optional,
  nullable: z.nullable,
  null: z.null,
  unknown: z.unknown,
  any: z.any,
};

/** What a schema builder receives: `zod.object(...)`, `zod.string()` and the rest of `zodApi`. */
export type Zod = typeof zodApi;
