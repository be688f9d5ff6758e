import type { Config } from "../config/schema.ts";
import type {
  AskRequest,
  ElicitationDecision,
  ElicitationRequest,
  FileAccess,
  TerminalRunner,
  ToolContext,
  ToolHost,
  ToolOutput,
} from "./types.ts";

/** What every tool context is made of; the one place a ToolContext is built. */
export interface ContextParts {
  worktree: string;
  config: Readonly<Config>;
  trusted: boolean;
  headless: boolean;
  /** Session name the tools see (web results are kept per session name). */
  session: string;
  signal: AbortSignal;
  ask?: (request: AskRequest) => Promise<string | null>;
  /** The configured approver of MCP servers' questions, when there is one. */
  elicit?: (request: ElicitationRequest) => Promise<ElicitationDecision | null>;
  status?: (line: string) => void;
  /** The engine's delegation channel (the `delegate` tool). */
  delegate?: (type: string, task: string) => Promise<ToolOutput>;
  /** Given to tools that declare `usesHost`. */
  host?: ToolHost;
  /** The call was judged outside the worktree and approved for it. */
  outsideApproved?: boolean;
  /** Records a file's content before a write (the turn's checkpoint). */
  beforeWrite?: (path: string) => Promise<void>;
  /** The file tools' backend when it is not the disk (an editor's, over ACP). */
  files?: FileAccess;
  /** Runs unsandboxed commands in the front-end's terminal (an editor's, over ACP). */
  terminal?: TerminalRunner;
}

/** Builds the ToolContext handed to a tool's `run`. */
export function toolContext(parts: ContextParts): ToolContext {
  return {
    worktree: parts.worktree,
    signal: parts.signal,
    config: parts.config,
    session: parts.session,
    headless: parts.headless,
    ask: parts.ask ?? (() => Promise.resolve(null)),
    status: parts.status ?? (() => {}),
    trusted: parts.trusted,
    ...(parts.delegate ? { delegate: parts.delegate } : {}),
    ...(parts.elicit ? { elicit: parts.elicit } : {}),
    ...(parts.host ? { host: parts.host } : {}),
    ...(parts.outsideApproved ? { outsideApproved: true } : {}),
    ...(parts.beforeWrite ? { beforeWrite: parts.beforeWrite } : {}),
    ...(parts.files ? { files: parts.files } : {}),
    ...(parts.terminal ? { terminal: parts.terminal } : {}),
  };
}
