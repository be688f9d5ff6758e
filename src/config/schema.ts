import * as z from "zod";

import { ACTIONS, BASH_LEVELS } from "../shared/types.ts";
export {
  type Action,
  ACTIONS,
  BASH_LEVELS,
  type BashLevel,
  CATEGORIES,
  type Category,
} from "../shared/types.ts";
import { BUNDLED_PLUGINS, SANDBOX_MODES } from "./keys.ts";
import { SIZE_PATTERN } from "../util/size.ts";
export { BUNDLED_PLUGINS, REMOVED_KEYS } from "./keys.ts";

const action = z.enum(ACTIONS);

export const ToolPermissionSchema = z.strictObject({
  read: action.optional(),
  list: action.optional(),
  edit: action.optional(),
  bash: z.enum(BASH_LEVELS).optional(),
  web: action.optional(),
  mcp: action.optional(),
  delegate: action.optional(),
  ask: action.optional(),
  bash_allow: z.array(z.string()).optional(),
});
export type ToolPermission = z.infer<typeof ToolPermissionSchema>;

/** A server name or tool prefix: it becomes the first part of imported tool names. */
const MCP_NAME = /^[A-Za-z0-9_-]{1,32}$/;
const MCP_NAME_RULE =
  "must be 1-32 letters, digits, _ or - (imported tools are named <prefix>.<tool>)";
/** An HTTP header name (an RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** What is wrong with an `oauth` block's machine-client (client_credentials) settings, if any. */
function machineProblem(
  oauth:
    | { grant?: string; client_id?: string; client_secret?: string } & Record<string, unknown>
    | undefined,
): string | undefined {
  if (oauth?.grant !== "client_credentials") {
    const stray = ["issuer", "private_key_file", "signing_algorithm"].find((k) => oauth?.[k]);
    return stray && `oauth.${stray} applies to oauth.grant "client_credentials" only`;
  }
  if (!oauth.client_id) return 'oauth.grant "client_credentials" needs oauth.client_id';
  if (!oauth.issuer) {
    return 'oauth.grant "client_credentials" needs oauth.issuer (the authorization server ' +
      "trusted with the credentials)";
  }
  if (Boolean(oauth.client_secret) === Boolean(oauth.private_key_file)) {
    return 'oauth.grant "client_credentials" needs one of oauth.client_secret ' +
      "(client_secret_basic) or oauth.private_key_file (private_key_jwt)";
  }
  if (oauth.client_metadata_url) return "oauth.client_metadata_url applies to people's sign-in";
  return undefined;
}

/** One `mcp.servers` entry: an MCP server svc may connect to (see docs/mcp_client.md). */
export const McpServerSchema = z.strictObject({
  name: z.string().regex(MCP_NAME, MCP_NAME_RULE),
  transport: z.enum(["stdio", "http"]).default("stdio"),
  command: z.string().min(1, "must name the program to start").optional(),
  args: z.array(z.string()).default([]),
  cwd: z.string().min(1).nullable().default(null),
  env: z.record(z.string(), z.string()).default({}),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).default({}),
  prefix: z.string().regex(MCP_NAME, MCP_NAME_RULE).optional(),
  /** Seconds before one request is cancelled. */
  timeout: z.number().positive().max(86400).default(60),
  /** svc extension: connect when the first engine starts (svc run, svc serve). */
  autoconnect: z.boolean().default(false),
  /** svc extension: start the stdio server inside svc's OS sandbox (docs/mcp_client.md). */
  sandbox: z.boolean().default(false),
  /** OAuth sign-in settings of an http server (docs/mcp_client.md#signing-in-oauth). */
  oauth: z.strictObject({
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    client_metadata_url: z.string().regex(
      /^https:\/\/[^/]+\/./,
      "must be an https:// URL with a path",
    ).optional(),
    scope: z.string().min(1).optional(),
    /** `client_credentials`: a machine client that signs in by itself (no person, no login). */
    grant: z.enum(["authorization_code", "client_credentials"]).optional(),
    /** client_credentials: the authorization server's issuer, the only one given the credentials. */
    issuer: z.string().regex(/^https?:\/\//, "must be an http(s):// URL").optional(),
    /** client_credentials with private_key_jwt: the PEM private key's file (0600, yours). */
    private_key_file: z.string().min(1).optional(),
    /** The key's JWS algorithm (default RS256). */
    signing_algorithm: z.string().min(1).optional(),
  }).optional(),
}).superRefine((server, ctx) => {
  const problem = (key: string, message: string) =>
    ctx.addIssue({ code: "custom", path: [key], message: `server ${server.name}: ${message}` });
  for (const [key, value] of Object.entries(server.env)) {
    if (!/^[^=\0]+$/.test(key) || value.includes("\0")) {
      problem("env", `env ${JSON.stringify(key)} is not a valid environment variable`);
    }
  }
  for (const [key, value] of Object.entries(server.headers)) {
    if (!HEADER_NAME.test(key) || /[\r\n\0]/.test(value)) {
      problem("headers", `headers ${JSON.stringify(key)} is not a valid HTTP header`);
    }
  }
  if (server.transport === "stdio") {
    if (!server.command) problem("command", "transport stdio needs command (the program to start)");
    if (server.url !== undefined) problem("url", 'url applies to transport "http" only');
    if (Object.keys(server.headers).length) {
      problem("headers", 'headers apply to transport "http" only');
    }
    if (server.oauth) problem("oauth", 'oauth applies to transport "http" only');
    return;
  }
  if (server.oauth?.client_secret && !server.oauth.client_id) {
    problem("oauth", "oauth.client_secret needs oauth.client_id (the pre-registered client)");
  }
  const machine = machineProblem(server.oauth);
  if (machine) problem("oauth", machine);
  if (server.url === undefined) problem("url", "transport http needs url (the MCP endpoint)");
  else if (!/^https?:$/.test(URL.parse(server.url)?.protocol ?? "")) {
    problem("url", `url must be an http:// or https:// address, not ${JSON.stringify(server.url)}`);
  }
  for (const key of ["command", "cwd"] as const) {
    if (server[key]) problem(key, `${key} applies to transport "stdio" only`);
  }
  if (server.args.length) problem("args", 'args apply to transport "stdio" only');
  if (server.sandbox) {
    problem(
      "sandbox",
      'sandbox applies to transport "stdio" only (svc starts no program for http)',
    );
  }
  if (Object.keys(server.env).length) problem("env", 'env applies to transport "stdio" only');
});
export type McpServer = z.infer<typeof McpServerSchema>;

/** Server names and tool prefixes must be distinct: both identify a server's tools. */
function distinctServers(servers: McpServer[], ctx: z.RefinementCtx): void {
  const names = new Set<string>();
  const prefixes = new Map<string, string>();
  servers.forEach((server, index) => {
    if (names.has(server.name)) {
      ctx.addIssue({
        code: "custom",
        path: [index, "name"],
        message: `server name ${server.name} is used twice; names must be unique`,
      });
      return;
    }
    names.add(server.name);
    const prefix = server.prefix ?? server.name;
    const holder = prefixes.get(prefix);
    if (holder !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: [index, "prefix"],
        message: `servers ${holder} and ${server.name} both use the tool prefix ${prefix}; ` +
          "give one of them another prefix",
      });
    }
    prefixes.set(prefix, server.name);
  });
}

const size = z.union([
  z.number().int().positive(),
  z.string().regex(SIZE_PATTERN, "must be a size such as 4GiB, 512M or 1048576 (bytes)"),
]);

/** `limits.command`: what one command svc runs for a model may use (docs/security.md). */
export const CommandLimitsSchema = z.strictObject({
  /** Heap (RLIMIT_DATA) of each process; default 4 GiB. */
  memory: size.optional(),
  /** Processes of the command's sandbox (RLIMIT_NPROC); default 512. */
  processes: z.number().int().positive().optional(),
  /** CPU seconds of each process (RLIMIT_CPU); default the command's timeout. */
  cpu_seconds: z.number().int().positive().optional(),
  /** Largest file a process may write (RLIMIT_FSIZE); default 4 GiB. */
  file_size: size.optional(),
  /** Open files of each process (RLIMIT_NOFILE); default 1024. */
  open_files: z.number().int().positive().optional(),
});
export type CommandLimitsConfig = z.infer<typeof CommandLimitsSchema>;

/** One `prices` entry: USD per million tokens (docs/providers.md#usage-and-cost). */
export const PriceSchema = z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
  /** Prompt tokens read from the provider's cache; default `input`. */
  cached_input: z.number().min(0).optional(),
});

const pathList = z.array(z.string().min(1)).default([]);
const domainList = z.array(
  z.string().regex(/^(\*|(\*\.)?[A-Za-z0-9.-]+)$/, "must be a host name, *.domain or *"),
).default([]);

const REASONING = [false, true, "off", "on", "auto", "low", "medium", "high"] as const;

/** One command of `hooks` (unknown fields accepted, as the convention does). */
const CommandHookSchema = z.looseObject({
  type: z.literal("command"),
  command: z.string().min(1, "must name the command to run"),
  /** Seconds; default 60. */
  timeout: z.number().positive().max(600).optional(),
  /** svc extension: a crash, a timeout or unreadable output denies. */
  fail_closed: z.boolean().optional(),
});

/** `hooks`: event name -> matcher groups (docs/hooks.md). */
export const HooksSchema = z.record(
  z.string(),
  z.array(z.looseObject({ matcher: z.string().optional(), hooks: z.array(CommandHookSchema) })),
);

/**
 * Every configuration key with its type and default. Dotted names are flat keys, exactly as
 * SPEC.md spells them; `tool_permission.bash_allow` is folded into `tool_permission` on load.
 */
export const ConfigSchema = z.strictObject({
  provider: z.string().optional(),
  base_url: z.string().optional(),
  model: z.string().optional(),
  /**
   * Sampling temperature, sent only when set; 0 to 2 is the chat-completions range (Anthropic
   * takes 0 to 1 and refuses more).
   */
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(0).default(8192),
  reasoning: z.literal(REASONING).default("auto"),
  show_thinking: z.boolean().default(false),
  mode: z.enum(["plan", "build"]).optional(),
  system_prompt: z.string().optional(),
  project_instructions: z.string().default("AGENTS.md"),
  /** The lines of the system prompt's environment block (docs/prompt.md); false drops a line. */
  "context.date": z.boolean().default(true),
  "context.os": z.boolean().default(true),
  "context.worktree": z.boolean().default(true),
  "context.git": z.boolean().default(true),
  "context.sandbox": z.boolean().default(true),
  "context.permissions": z.boolean().default(true),
  "context.agents": z.boolean().default(true),
  plugins: z.array(z.string()).default(BUNDLED_PLUGINS),
  "tools.allow": z.array(z.string()).default([]),
  "tools.deny": z.array(z.string()).default([]),
  tool_permission: ToolPermissionSchema.default({}),
  tool_max_result_chars: z.number().int().min(0).default(100000),
  list_dir_max_entries: z.number().int().min(0).default(200),
  session_tool_max_chars: z.number().int().min(0).default(0),
  tool_analysis: z.boolean().default(false),
  noise_tools: z.array(z.string()).default(["web_fetch", "fetch_page", "fetch", "open"]),
  tool_calling: z.boolean().default(true),
  web_search: z.boolean().optional(),
  query_refine: z.boolean().optional(),
  query_refine_min_words: z.number().int().min(0).default(3),
  query_refine_context: z.number().int().min(0).default(4),
  stream_retries: z.number().int().min(0).default(2),
  stream_retry_delay: z.number().min(0).default(0.5),
  /** svc addition: seconds without any stream byte before a round is failed (0 disables). */
  stream_idle_timeout: z.number().min(0).default(120),
  /**
   * svc addition: seconds a stream may send only keep-alives (comments, empty deltas) before a
   * round is failed (0 disables); gaps with no byte at all keep stream_idle_timeout.
   */
  stream_ping_timeout: z.number().min(0).default(600),
  connect_check: z.boolean().default(true),
  compact_keep: z.number().int().min(0).default(4),
  /**
   * The model's context window in tokens (docs/sessions.md#automatic-compaction): one number, or
   * one per model keyed `"<provider>/<model>"` or `"<model>"`; unset: what the backend reports,
   * else 32,768.
   */
  context_window: z.union([
    z.number().int().positive(),
    z.record(z.string(), z.number().int().positive()),
  ]).optional(),
  /** Compact before a round whose request would pass this share of the window (0: never). */
  "compaction.threshold": z.number().min(0).max(1).default(0.8),
  delegate_echo: z.boolean().default(true),
  glyph_lines: z.boolean().default(true),
  tool_status_visible: z.boolean().default(true),
  show_context_size: z.boolean().default(true),
  show_version: z.boolean().default(true),
  clear_screen: z.boolean().default(true),
  markdown_streaming: z.boolean().default(false),
  "dev.test_cmd": z.string().optional(),
  "dev.lint_cmd": z.string().optional(),
  "dev.format_cmd": z.string().optional(),
  "mcp.servers": z.array(McpServerSchema).superRefine(distinctServers).default([]),
  "mcp_server.allow_ask": z.boolean().default(true),
  /** Unset: workspace-write where a sandbox can run (docs/security.md). */
  "sandbox.mode": z.enum(SANDBOX_MODES).optional(),
  "sandbox.failIfUnavailable": z.boolean().default(true),
  "sandbox.filesystem.allowWrite": pathList,
  "sandbox.filesystem.denyWrite": pathList,
  "sandbox.filesystem.denyRead": pathList,
  "sandbox.network.allowedDomains": domainList,
  "sandbox.network.deniedDomains": domainList,
  "limits.command": CommandLimitsSchema.default({}),
  /** The limits of one turn (docs/run.md#limits); the 64-round cap stays above max_turns. */
  "limits.max_turns": z.number().int().min(1).max(64).optional(),
  "limits.max_tokens_total": z.number().int().min(1).optional(),
  "limits.max_cost": z.number().positive().optional(),
  /** `"<provider>/<model>"`: its price, over the bundled table (src/provider/prices.ts). */
  prices: z.record(z.string(), PriceSchema).default({}),
  /** Hooks in Claude Code's format (docs/hooks.md); the user's and a trusted worktree's only. */
  hooks: HooksSchema.default({}),
  /** A permission-prompt MCP tool that answers ask-gated calls of headless runs (docs/hooks.md). */
  "approver.mcp_tool": z.string().min(1).optional(),
  /**
   * Seconds a remote approval channel (an approver, a served client) may take; past it, deny.
   * 5 minutes: long enough for a person to answer, and a working approver answers at once.
   */
  approval_timeout: z.number().positive().max(86400).default(300),
});

/** The merged, validated configuration with every default applied. */
export type Config = z.infer<typeof ConfigSchema>;
