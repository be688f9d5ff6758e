import type {
  ClientInfo,
  ServiceToolInfo,
  ServiceToolResult,
  ServiceTools,
} from "../plugin/api.ts";
import type { PermissionRecord } from "../shared/types.ts";
import type { Approver } from "../tool/approval.ts";
import { toolContext } from "../tool/context.ts";
import type { ToolHooks } from "../tool/hook_gate.ts";
import { invokeTool } from "../tool/invoke.ts";
import { offeredTools } from "../tool/judge.ts";
import type { Tool } from "../tool/types.ts";
import type { Runtime } from "./runtime.ts";

/** The session name tools see for served calls (web results are kept per session name). */
export const SERVED_SESSION = "mcp";

/** How served calls are serialized and audited. */
export interface ServeToolsOptions {
  /** Runs a tool under the server's lock (shared with /chat turns); default runs it directly. */
  serialize?: <T>(fn: () => Promise<T>, signal: AbortSignal) => Promise<T>;
  /** Receives the audit record of every call, refusals included. */
  audit(record: PermissionRecord): Promise<void>;
  /** Aborted when the server shuts down: running tools are cancelled like a turn. */
  shutdown?: AbortSignal;
  /** Where hook warnings go (the server's log). */
  warn?: (message: string) => void;
}

/**
 * The runtime's policy-filtered tools, served to external clients (MCP), without the `ask` and
 * `delegate` categories: no one can answer a question asked over MCP, and a sub-agent needs a
 * lead engine and a session. Each call goes through the one invocation
 * path: deny is refused, ask runs only for an authenticated client while `mcp_server.allow_ask` is
 * true (the client confirms, and the audit says so), allow runs; the PreToolUse and PostToolUse
 * hooks run as in a turn. No session is written.
 */
export function servedTools(runtime: Runtime, options: ServeToolsOptions): ServiceTools {
  const served = () => {
    const view = runtime.toolView();
    return { view, tools: offeredTools(view, runtime).filter(servable) };
  };
  return {
    list: (): ServiceToolInfo[] => {
      const { view, tools } = served();
      return tools.map((tool) => ({
        name: tool.name,
        category: tool.category,
        description: tool.description,
        inputSchema: view.schemaOf(tool).function.parameters,
      }));
    },
    async call(name, args, requestSignal, client, observer): Promise<ServiceToolResult> {
      const signal = options.shutdown
        ? AbortSignal.any([requestSignal, options.shutdown])
        : requestSignal;
      const { view, tools } = served();
      const inv = await invokeTool({
        id: `mcp_${crypto.randomUUID().slice(0, 8)}`,
        name,
        arguments: JSON.stringify(args ?? {}),
      }, {
        view,
        offered: tools.map((t) => t.name),
        scope: runtime,
        approver: approverFor(runtime, client),
        session: SERVED_SESSION,
        signal,
        exclusive: options.serialize && ((fn) => options.serialize!(fn, signal)),
        context: (tool, call) =>
          toolContext({
            ...call,
            worktree: runtime.worktree,
            config: runtime.config,
            trusted: runtime.trusted,
            headless: true,
            session: SERVED_SESSION,
            signal,
            status: observer?.status && ((line) => observer.status!(line)),
            host: tool.usesHost ? runtime.hostFor(tool) : undefined,
          }),
        audit: (inv) => options.audit(inv.audit),
        hooks: servedHooks(runtime, {
          warn: (message) => {
            observer?.warning?.(message);
            options.warn?.(message);
          },
        }),
      });
      return { content: inv.content, ok: inv.ok, ...(inv.images ? { images: inv.images } : {}) };
    },
  };
}

/**
 * The PreToolUse and PostToolUse hooks of served calls (docs/hooks.md): the runtime's, with the
 * session `mcp` (no transcript: served calls write no session); undefined without hooks.
 */
function servedHooks(
  runtime: Runtime,
  options: Pick<ServeToolsOptions, "warn">,
): ToolHooks | undefined {
  const runner = runtime.hooks;
  if (!runner) return undefined;
  return {
    runner,
    session: { id: SERVED_SESSION },
    permissionMode: runtime.config.mode === "plan" ? "plan" : "default",
    notice: options.warn ?? (() => {}),
  };
}

/** Whether a client can use a tool at all: `ask` needs a person to answer, which MCP has not. */
function servable(tool: Tool): boolean {
  return tool.category !== "ask" && tool.category !== "delegate";
}

/**
 * Who confirms ask-gated calls: an authenticated client while `mcp_server.allow_ask` is true;
 * otherwise they are refused, and the result says why and what to change.
 */
function approverFor(runtime: Runtime, client: ClientInfo | undefined): Approver {
  const allowAsk = runtime.config["mcp_server.allow_ask"];
  if (allowAsk && client?.authenticated) {
    return () => Promise.resolve({ answer: "once", by: "client" });
  }
  return (request) =>
    Promise.resolve({
      answer: "deny",
      by: "policy",
      message: allowAsk
        ? `Error: ${request.tool} needs confirmation (${request.reason}) and this MCP client is ` +
          "not authenticated (svc serve --no-auth); serve with a token to let clients confirm"
        : `Error: ${request.tool} needs confirmation (${request.reason}) and mcp_server.allow_ask is false`,
    });
}
