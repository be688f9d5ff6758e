/**
 * A tool's argument schema, built on first use. A tool may give its zod schema as a function of
 * zod (`zodApi`: zod's schema constructors) instead of a built object: loading zod and building
 * svc's schemas cost an installed `svc run` about a fifth of its start (docs/performance.md), and a
 * turn whose tools advertise remembered JSON schemas (start_memo.ts) and are never called needs
 * neither. Whoever validates arguments awaits `loadZod()` first (the invocation path does);
 * `argSchema` then builds each schema once.
 */
import type * as Z from "zod";
import type { Tool } from "./types.ts";
import type { Zod } from "./zod_api.ts";

export type { Zod };

/** A schema given as a function of zod, called once when first needed. */
export type SchemaBuilder<S extends Z.ZodObject = Z.ZodObject> = (zod: Zod) => S;

/** The arguments `run` receives for a builder's schema. */
export type ArgsOf<B extends SchemaBuilder> = Z.infer<ReturnType<B>>;

let zod: Zod | undefined;
const built = new WeakMap<SchemaBuilder, Z.ZodObject>();

/** Loads zod once per process; cheap after the first call. */
export async function loadZod(): Promise<Zod> {
  return zod ??= (await import("./zod_api.ts")).zodApi;
}

/**
 * Hands over the zod a module imported statically (`zodApi`), for code that cannot import later
 * (a plugin sandbox's Worker may not read svc's files once it runs: its grant covers its plugin).
 */
export function useZod(namespace: Zod): void {
  zod ??= namespace;
}

/** Whether building `tool`'s schema needs zod that is not loaded yet. */
export function needsZod(tool: Pick<Tool, "schema">): boolean {
  return typeof tool.schema === "function" && zod === undefined && !built.has(tool.schema);
}

/**
 * The zod schema of a tool's arguments. A builder is called once (and shared by copies of the
 * tool); throws when zod is not loaded yet, a broken invariant of the caller.
 */
export function argSchema(tool: Pick<Tool, "name" | "schema">): Z.ZodObject {
  const schema = tool.schema;
  if (typeof schema !== "function") return schema;
  let object = built.get(schema);
  if (!object) {
    if (!zod) throw new Error(`the schema of ${tool.name} is needed before loadZod() resolved`);
    object = schema(zod);
    built.set(schema, object);
  }
  return object;
}
