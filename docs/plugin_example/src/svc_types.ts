/**
 * The few shapes of svc's plugin API this plugin uses, declared locally: an installed plugin
 * lives outside svc's source tree, so it cannot import `src/plugin/api.ts` by path. Keep them in
 * step with svc's `src/plugin/api.ts` and `src/tool/types.ts` (structural typing does the rest).
 */
import type { z } from "zod";

/** What every hook receives. */
export interface Registrar<T> {
  add(item: T): void;
}

/** The subset of svc's ToolContext this plugin reads. */
export interface ToolContext {
  worktree: string;
  signal: AbortSignal;
}

/** A tool as svc expects it. */
export interface Tool {
  name: string;
  category:
    | "read"
    | "list"
    | "edit"
    | "bash"
    | "web"
    | "mcp"
    | "delegate"
    | "ask";
  description: string;
  schema: z.ZodObject;
  run(
    args: Record<string, unknown>,
    ctx: ToolContext,
  ): Promise<string | { content: string; ok?: boolean }>;
}
