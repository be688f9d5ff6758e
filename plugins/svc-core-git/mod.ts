/** svc-core-git: the read-only git tool and git_commit. */
import type { Tool } from "../../src/plugin/api.ts";
import { gitCommitTool } from "./src/git_commit.ts";
import { gitTool } from "./src/git_tool.ts";

/** Registers git and git_commit. */
export function register_tools(registry: { add(tool: Tool): void }): void {
  registry.add(gitTool);
  registry.add(gitCommitTool);
}
