/**
 * Entry of the example plugin. svc imports this module and calls every exported hook it knows
 * (`register_tools`, `register_providers`, ...) with a registrar `{ add(item) }`.
 */
import { wordCount } from "./src/word_count.ts";
import type { Registrar, Tool } from "./src/svc_types.ts";

/** Adds the plugin's tools. */
export function register_tools(registry: Registrar<Tool>): void {
  registry.add(wordCount);
}
