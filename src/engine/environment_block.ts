/**
 * The environment block at the end of the system prompt (docs/prompt.md): where the model works
 * and under which rules, one short line each, each dropped by its `context.*` key. The date and
 * the git state are the session's (environment.ts); the rest follows from the engine's config and
 * the tools offered this turn, so the block changes only when one of those does.
 */
import { basename } from "../util/posix_path.ts";
import { CATEGORIES, type Category, DEFAULT_ACTIONS } from "../shared/types.ts";
import { commandFate, type SandboxKind, sandboxKindNow, sandboxSettings } from "../sandbox/mod.ts";
import { denyAll } from "../tool/approval.ts";
import { shellProgram } from "../tool/shell.ts";
import type { Tool } from "../tool/types.ts";
import type { SessionLog } from "../session/log.ts";
import type { SessionEnvironment } from "../session/types.ts";
import type { Clock } from "../util/time.ts";
import type { EngineDeps } from "./deps.ts";
import { sessionEnvironment } from "./environment.ts";

/** What the block is drawn from: the engine, its session and the tools offered this turn. */
export interface BlockScope {
  deps: Pick<
    EngineDeps,
    "config" | "worktree" | "trusted" | "headless" | "approver" | "agents"
  >;
  session: SessionLog;
  offered: readonly Tool[];
  clock?: Clock;
}

/** The block's text, or undefined when every line is turned off. */
export async function environmentBlock(scope: BlockScope): Promise<string | undefined> {
  const { deps, session, offered } = scope;
  const on = (line: string) => deps.config[`context.${line}` as `context.date`] !== false;
  const commands = offered.some((tool) => tool.category === "bash");
  const delegates = offered.some((tool) => tool.name === "delegate") && deps.agents;
  // No sandbox probe here: the answer this process already has, else what the files tell.
  const kind = commands ? sandboxKindNow() : undefined;
  const [facts, catalog] = await Promise.all([
    on("date") || on("git")
      ? sessionEnvironment(session, deps.worktree, { clock: scope.clock, git: on("git") })
      : undefined,
    on("agents") && delegates ? deps.agents!.catalog() : undefined,
  ]);
  const lines: string[] = [];
  if (facts && on("date")) lines.push(`Date: ${facts.date} (${facts.time_zone})`);
  if (on("os")) {
    lines.push(`OS: ${Deno.build.os} ${Deno.build.arch}; shell: ${basename(shellProgram())}`);
  }
  if (on("worktree")) lines.push(`Worktree: ${deps.worktree}`);
  if (facts && on("git")) lines.push(gitLine(facts.git));
  if (on("sandbox")) lines.push(trustLine(deps, commands ? kind : undefined));
  if (on("permissions")) lines.push(permissionsLine(deps, offered, kind));
  if (catalog?.types.size) lines.push(`Delegate types: ${[...catalog.types.keys()].join(", ")}`);
  return lines.length ? `Environment:\n${lines.join("\n")}` : undefined;
}

function gitLine(git: SessionEnvironment["git"]): string {
  if (!git) return "Git: not a repository";
  const where = git.branch === "detached HEAD" ? git.branch : `branch ${git.branch}`;
  if (git.changed === null) return `Git: ${where}; changed files unknown (${git.note})`;
  const changed = git.changed === 0
    ? "no changed files"
    : `${git.changed} changed file${git.changed === 1 ? "" : "s"}`;
  return `Git: ${where}, ${changed} at session start`;
}

/** Trust, and what happens to commands (`svc sandbox status` in short); no probe without them. */
function trustLine(deps: BlockScope["deps"], kind: SandboxKind | undefined): string {
  const trust = `Trust: ${deps.trusted ? "trusted" : "untrusted"} worktree`;
  if (!kind) return trust;
  const settings = sandboxSettings(deps.config, deps.worktree);
  const fate = commandFate(settings, kind);
  if (fate.commands === "refused") return `${trust}; commands refused: ${fate.why}`;
  if (fate.commands === "unsandboxed") return `${trust}; commands unsandboxed (${fate.why})`;
  const writes = settings.mode === "read-only" ? "writes only /tmp" : "writes worktree and /tmp";
  const network = settings.allowedDomains.length ? "allowed hosts only" : "none";
  return `${trust}; commands sandboxed (${
    kind.ok ? kind.kind : ""
  }): ${writes}, network ${network}`;
}

/** The mode, the offered categories that need approval, and who gives it. */
function permissionsLine(
  deps: BlockScope["deps"],
  offered: readonly Tool[],
  kind: SandboxKind | undefined,
): string {
  const mode = `Permissions: ${deps.config.mode ?? "build"} mode`;
  const present = new Set<Category>(offered.map((tool) => tool.category));
  const held = kind?.ok === true && deps.config["sandbox.mode"] !== "danger-full-access";
  const gated = CATEGORIES.filter((category) => {
    if (!present.has(category)) return false;
    const level = deps.config.tool_permission[category] ?? DEFAULT_ACTIONS[category];
    return level === "ask" || (level === "sandboxed" && !held);
  });
  if (!gated.length) return `${mode}; the offered tools run without approval`;
  const who = !deps.headless
    ? "the user is asked"
    : deps.approver === denyAll
    ? "refused in this headless run"
    : "an approver decides";
  return `${mode}; approval needed for ${gated.join(", ")} (${who})`;
}
