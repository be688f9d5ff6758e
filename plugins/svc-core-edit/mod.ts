/** svc-core-edit: the file-changing tools file_write and file_edit. */
import type { Tool } from "../../src/plugin/api.ts";
import { fileEdit } from "./src/file_edit.ts";
import { fileWrite } from "./src/file_write.ts";

/** The tools this plugin contributes, in the order they are registered. */
export const tools: Tool[] = [fileWrite, fileEdit];

/** Plugin hook: registers every svc-core-edit tool. */
export function register_tools(registry: { add(tool: Tool): void }): void {
  for (const tool of tools) registry.add(tool);
}
