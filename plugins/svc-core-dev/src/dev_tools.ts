/** code_test, code_lint and code_format: the project's own commands, gated like run_command. */
import type { Zod } from "../../../src/plugin/api.ts";
import { bashAllowed, bashAllowPolicy, type Tool } from "../../../src/plugin/api.ts";
import { commandSandbox, MAX_TIMEOUT_S, runShell } from "../../../src/tool/shell.ts";
import { devCommand, type DevConfig, type DevKind } from "./detect.ts";

const schema = (z: Zod) =>
  z.object({
    target: z.string().optional().describe("optional file, folder or test name to narrow the run"),
  });

const WHAT = { test: "Run the tests", lint: "Run the linter", format: "Run the formatter" };

/** The dev tool of `kind`; its command must pass bash_allow when an allowlist is set. */
export function devTool(kind: DevKind): Tool {
  return {
    name: `code_${kind}`,
    category: "bash",
    runsInSandbox: true,
    description: `${WHAT[kind]} of the project (dev.${kind}_cmd, or chosen from deno.json, ` +
      "package.json or a Python project). Returns exit code and output.",
    schema,
    resolvePolicy(args, worktree) {
      const allow = args._permissions.bash_allow;
      if (!allow?.length) return undefined;
      // Resolvers get no config; a `_config` from the engine is honoured when present.
      const config = args._config as DevConfig | undefined;
      const picked = devCommand(kind, worktree, {
        config,
        target: args.target as string | undefined,
      });
      if ("error" in picked) return undefined;
      return bashAllowPolicy(picked.checked, { prefixes: allow, worktree });
    },
    async run(args, ctx) {
      const picked = devCommand(kind, ctx.worktree, {
        config: ctx.config,
        target: args.target as string | undefined,
      });
      if ("error" in picked) return { content: picked.error, ok: false };
      const allow = ctx.config.tool_permission.bash_allow ?? [];
      const verdict = allow.length
        ? bashAllowed(picked.checked, { prefixes: allow, worktree: ctx.worktree })
        : null;
      if (verdict && !verdict.ok) {
        return {
          content: `bash_allow does not permit ${picked.checked}: ${verdict.reason}`,
          ok: false,
        };
      }
      ctx.status(`$ ${picked.checked}`);
      const result = await runShell(picked.command, {
        cwd: ctx.worktree,
        worktree: ctx.worktree,
        sandbox: commandSandbox(ctx),
        timeoutS: MAX_TIMEOUT_S,
        signal: ctx.signal,
      });
      return { ...result, content: `$ ${picked.checked}\n${result.content}` };
    },
  };
}
