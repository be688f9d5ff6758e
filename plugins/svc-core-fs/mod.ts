/** svc-core-fs: the read-only file tools file_read, list_dir, glob and grep. */
import type { Tool } from "../../src/plugin/api.ts";
import { fileRead } from "./src/file_read.ts";
import { glob } from "./src/glob.ts";
import { grep } from "./src/grep.ts";
import { listDir } from "./src/list_dir.ts";

/** The tools this plugin contributes, in the order they are registered. */
export const tools: Tool[] = [fileRead, listDir, glob, grep];

/** Plugin hook: registers every svc-core-fs tool. */
export function register_tools(registry: { add(tool: Tool): void }): void {
  for (const tool of tools) registry.add(tool);
}
