/**
 * `session/list`: the worktree's saved sessions, newest first, a page at a time. Sub-agent
 * sessions (`sub_...`) are left out: an editor resumes conversations, not a lead's helpers. The
 * title is the name's slug (the first prompt's words); no session file is parsed.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { Runtime } from "../runtime/mod.ts";
import { join } from "../util/posix_path.ts";

/** Sessions per page. */
export const PAGE = 50;

/** One page of the sessions of `runtime`'s worktree; `cursor` is where the page starts. */
export async function listSessions(
  runtime: Runtime,
  options: { cursor?: string },
): Promise<acp.ListSessionsResponse> {
  const names = (await runtime.sessions.list()).filter((name) => !name.startsWith("sub_"));
  const dated = await Promise.all(names.map(async (name) => {
    try {
      const info = await Deno.stat(join(runtime.sessions.dir, `${name}.json`));
      return { name, mtime: info.mtime?.getTime() ?? 0 };
    } catch {
      return null;
    }
  }));
  const sorted = dated.filter((entry) => entry !== null)
    .sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? 1 : -1));
  const start = Math.max(0, Number.parseInt(options.cursor ?? "0", 10) || 0);
  const page = sorted.slice(start, start + PAGE);
  return {
    sessions: page.map(({ name, mtime }) => ({
      sessionId: name,
      cwd: runtime.worktree,
      title: titleOf(name),
      ...(mtime ? { updatedAt: new Date(mtime).toISOString() } : {}),
    })),
    ...(start + PAGE < sorted.length ? { nextCursor: String(start + PAGE) } : {}),
  };
}

/** `ses_20260101_120000_fix-the-build` -> `fix the build`; a name without a slug is itself. */
function titleOf(name: string): string {
  const slug = /^[a-z]+_\d{8}_\d{6}_(.+)$/.exec(name)?.[1];
  return slug ? slug.replaceAll("-", " ") : name;
}
