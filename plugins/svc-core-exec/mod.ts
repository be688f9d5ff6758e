/** svc-core-exec: the run_command tool. */
import type { Tool } from "../../src/plugin/api.ts";
import { runCommandTool } from "./src/run_command.ts";

/** Registers run_command. */
export function register_tools(registry: { add(tool: Tool): void }): void {
  registry.add(runCommandTool);
}
