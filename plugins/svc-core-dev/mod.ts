/** svc-core-dev: code_test, code_lint and code_format. */
import type { Tool } from "../../src/plugin/api.ts";
import { devTool } from "./src/dev_tools.ts";

/** Registers code_test, code_lint and code_format. */
export function register_tools(registry: { add(tool: Tool): void }): void {
  for (const kind of ["test", "lint", "format"] as const) registry.add(devTool(kind));
}
