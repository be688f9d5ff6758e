/** The read-only `git` tool: status, diff, log, branch, show and rev-parse, without a shell. */
import type { Zod } from "../../../src/plugin/api.ts";
import type { Tool } from "../../../src/plugin/api.ts";
import { checkGitArgs } from "./git_options.ts";
import { gitPathArgs, noIndexRefusal } from "./git_paths.ts";
import { gitRepo } from "./git_repo.ts";
import { gitOutput, runGit } from "./git_run.ts";

const SUBCOMMANDS = ["status", "diff", "log", "branch", "show", "rev_parse"] as const;

/** Flags added after the subcommand so diff drivers and submodules run nothing. */
const SAFE_FLAGS: Record<string, string[]> = {
  status: ["--ignore-submodules=all"],
  diff: ["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"],
  log: ["--no-ext-diff", "--no-textconv"],
  show: ["--no-ext-diff", "--no-textconv"],
};

const schema = (z: Zod) =>
  z.object({
    subcommand: z.enum(SUBCOMMANDS),
    args: z.array(z.string()).max(32).optional(),
  });

/** git: read-only git output; unknown options and program-running config are refused. */
export const gitTool: Tool = {
  name: "git",
  category: "read",
  description:
    "Read-only git: status, diff, log, branch, show, rev_parse. args: revisions, paths after --, " +
    "options such as --stat, --oneline, -n 5.",
  schema,
  pathsOf: (args) =>
    Array.isArray(args.args) && args.args.every((arg) => typeof arg === "string")
      ? gitPathArgs(String(args.subcommand), args.args)
      : [],
  async run(args, ctx) {
    const subcommand = args.subcommand as string;
    const extra = (args.args as string[] | undefined) ?? [];
    const badArgs = checkGitArgs(subcommand, extra);
    if (badArgs) return { content: badArgs, ok: false };
    const repo = gitRepo(ctx.worktree, ctx.trusted === true);
    if ("refused" in repo) return { content: repo.refused, ok: false };
    const noIndex = subcommand === "diff" ? await noIndexRefusal(extra, repo, ctx.signal) : null;
    if (noIndex) return { content: noIndex, ok: false };
    const name = subcommand === "rev_parse" ? "rev-parse" : subcommand;
    const result = await runGit(
      [name, ...(SAFE_FLAGS[subcommand] ?? []), ...extra],
      repo,
      ctx.signal,
    );
    return gitOutput(`git ${name}`, result);
  },
};
