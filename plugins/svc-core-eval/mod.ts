/** svc-core-eval: the five bundled fixtures of `svc eval`. */
import type { EvalFixtureDef } from "../../src/plugin/api.ts";
import { fixtures } from "./src/fixtures.ts";

/** Registers every bundled fixture. */
export function register_fixtures(registry: { add(fixture: EvalFixtureDef): void }): void {
  for (const fixture of fixtures) registry.add(fixture);
}
