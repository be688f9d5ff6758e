/** The `git_commit` tool: stage paths inside the worktree and commit; always ask-gated. */
import type { Zod } from "../../../src/plugin/api.ts";
import { isAbsolute, relative, resolve, sep } from "../../../src/plugin/api.ts";
import type { Tool } from "../../../src/plugin/api.ts";
import { gitRepo, realPath } from "./git_repo.ts";
import { gitOutput, runGit } from "./git_run.ts";

const schema = (z: Zod) =>
  z.object({
    message: z.string().min(1),
    add: z.array(z.string()).max(200).optional(),
  });

/** The path relative to the worktree, or null when it leaves it or points into .git. */
export function worktreePath(worktree: string, path: string): string | null {
  if (path === "" || path.includes("\0")) return null;
  const rel = relative(realPath(worktree), realPath(resolve(worktree, path)));
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  if (rel === ".git" || rel.startsWith(`.git${sep}`)) return null;
  return rel === "" ? "." : rel;
}

/** git_commit: `git add` of worktree paths, then `git commit`, hooks disabled; no other verbs. */
export const gitCommitTool: Tool = {
  name: "git_commit",
  category: "edit",
  description:
    "Stage the worktree paths in add (omit to commit what is staged), then commit with message. " +
    "Needs approval. No push, merge, checkout or history rewrite.",
  schema,
  resolvePolicy: () => "ask",
  async run(args, ctx) {
    const repo = gitRepo(ctx.worktree, ctx.trusted === true);
    if ("refused" in repo) return { content: repo.refused, ok: false };
    const paths: string[] = [];
    for (const path of (args.add as string[] | undefined) ?? []) {
      const rel = worktreePath(ctx.worktree, path);
      if (rel === null) return { content: `Path is outside the worktree: ${path}`, ok: false };
      paths.push(rel);
    }
    if (paths.length) {
      const added = await runGit(
        ["--literal-pathspecs", "add", "--", ...paths],
        repo,
        ctx.signal,
      );
      if (added.code !== 0 || added.timedOut || added.cancelled) {
        return gitOutput("git add", added);
      }
    }
    const committed = await runGit(
      ["commit", "--no-verify", "--no-gpg-sign", `--message=${args.message as string}`],
      repo,
      ctx.signal,
    );
    return gitOutput("git commit", committed);
  },
};
