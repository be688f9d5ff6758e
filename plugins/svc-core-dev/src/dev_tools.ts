/** code_test, code_lint and code_format: the project's own commands, gated like run_command. */
import type { Zod } from "../../../src/plugin/api.ts";
import { bashAllowed, bashAllowPolicy, type Tool } from "../../../src/plugin/api.ts";
import type { Resolved, ResolverArgs } from "../../../src/tool/types.ts";
import { commandSandbox, MAX_TIMEOUT_S, runShell } from "../../../src/tool/shell.ts";
import { devCommand, type DevConfig, type DevKind } from "./detect.ts";

const schema = (z: Zod) =>
  z.object({
    target: z.string().optional().describe("file, folder or test name to narrow the run"),
  });

const WHAT = { test: "tests", lint: "linter", format: "formatter" };

/**
 * An `ask` when the tool's command is the `dev.<kind>_cmd` an untrusted worktree's own config
 * set: a repository that is not trusted does not choose what runs without someone approving it
 * (denied in a headless run). Undefined otherwise.
 */
function repositoryCommand(kind: DevKind, args: ResolverArgs): Resolved | undefined {
  const key = `dev.${kind}_cmd` as const;
  const command = (args._config as DevConfig | undefined)?.[key]?.trim();
  if (!command || !args._worktreeKeys?.includes(key)) return undefined;
  return {
    action: "ask",
    reason: `${key} comes from this untrusted worktree's .svc/config.json: ${command}`,
  };
}

/** The dev tool of `kind`; its command must pass bash_allow when an allowlist is set. */
export function devTool(kind: DevKind): Tool {
  return {
    name: `code_${kind}`,
    category: "bash",
    runsInSandbox: true,
    description: `Run the project's ${WHAT[kind]} (dev.${kind}_cmd, else detected); returns ` +
      "exit code and output.",
    schema,
    resolvePolicy(args, worktree) {
      const config = args._config as DevConfig | undefined;
      const allow = args._permissions.bash_allow;
      const picked = allow?.length
        ? devCommand(kind, worktree, { config, target: args.target as string | undefined })
        : undefined;
      const allowed = picked && !("error" in picked)
        ? bashAllowPolicy(picked.checked, { prefixes: allow!, worktree })
        : undefined;
      const denied = (typeof allowed === "string" ? allowed : allowed?.action) === "deny";
      return denied ? allowed : repositoryCommand(kind, args) ?? allowed;
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
      // In a worktree that is not trusted, what the detection chose (a package.json script is
      // the repository's own command) is shown before it runs.
      ctx.status(
        `$ ${picked.checked}` +
          (!ctx.trusted && picked.from
            ? ` (chosen from ${picked.from}; this worktree is not trusted)`
            : ""),
      );
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
