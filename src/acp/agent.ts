/**
 * svc's ACP agent: the handlers of the protocol's requests over the runtime, one runtime per
 * worktree (and set of editor MCP servers), one AcpSession per ACP session.
 */
import * as acp from "@agentclientprotocol/sdk";
import { interactiveName, Runtime, type RuntimeInit, type SessionLog } from "../runtime/mod.ts";
import { VERSION } from "../version.ts";
import { availableCommands, slashCommand } from "./commands.ts";
import { EditorFiles } from "./files.ts";
import { mcpEntries } from "./mcp.ts";
import { editorApprover } from "./permission.ts";
import { promptImages, promptText } from "./prompt.ts";
import { replayUpdates } from "./replay.ts";
import { AcpSession, type Mode, MODES } from "./session.ts";
import { stopReason, text } from "./updates.ts";
import { listSessions } from "./listing.ts";
import { editorTerminal } from "./terminal.ts";

/** The backend flags of `svc acp` and where it logs. */
export interface AcpAgentOptions {
  init: Pick<RuntimeInit, "provider" | "model" | "baseUrl">;
  log(message: string): void;
  /** Where `initialize` looks up the configured model (default: the current directory). */
  cwd?: string;
}

/** How long `initialize` waits to learn whether the model takes images before saying no. */
const IMAGE_PROBE_MS = 3000;

type Client = acp.AgentContext;

/**
 * What the agent tells the editor in `initialize`; `image`: whether the configured model takes
 * images (docs/providers.md#images).
 */
export function agentInitialize(image = false): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: "svc", title: "svc", version: VERSION },
    agentCapabilities: {
      loadSession: true,
      // Embedded context is attached; images only when the model takes them.
      promptCapabilities: { image, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {} },
    },
    authMethods: [],
  };
}

/** The state of one connection: the editor's capabilities, runtimes and sessions. */
export class AcpAgent {
  #options: AcpAgentOptions;
  #clientCapabilities: acp.ClientCapabilities = {};
  #runtimes = new Map<string, Promise<Runtime>>();
  #sessions = new Map<string, AcpSession>();

  constructor(options: AcpAgentOptions) {
    this.#options = options;
  }

  async initialize(params: acp.InitializeRequest): Promise<acp.InitializeResponse> {
    this.#clientCapabilities = params.clientCapabilities ?? {};
    return agentInitialize(await this.#modelTakesImages());
  }

  /**
   * Whether the model sessions start with takes images: the configured one of the current
   * directory (and the flags), asked of models.json or the backend through the runtime a session
   * there uses. Unknown, failing or slower than IMAGE_PROBE_MS: no (the editor offers no images).
   */
  async #modelTakesImages(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), IMAGE_PROBE_MS);
    });
    const probe = (async () => {
      const runtime = await this.#runtime(this.#options.cwd ?? Deno.cwd(), []);
      return (await (await runtime.engine({ headless: false })).imageInput()).accepted;
    })().catch((err) => {
      this.#options.log(`images: not offered (${(err as Error).message})`);
      return false;
    });
    try {
      return await Promise.race([probe, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async newSession(params: acp.NewSessionRequest, client: Client): Promise<acp.NewSessionResponse> {
    const runtime = await this.#runtime(params.cwd, params.mcpServers);
    await runtime.sessions.checkWritable().catch((err) => {
      throw acp.RequestError.internalError(undefined, `sessions: ${(err as Error).message}`);
    });
    let id = interactiveName(new Date(), "acp");
    for (let n = 2; this.#sessions.has(id) || await runtime.sessions.exists(id); n++) {
      id = `${interactiveName(new Date(), "acp")}_${n}`;
    }
    const session = runtime.sessions.create(id);
    return this.#described(this.#open({ id, runtime, client, session, resumed: false }));
  }

  async loadSession(
    params: acp.LoadSessionRequest,
    client: Client,
  ): Promise<acp.LoadSessionResponse> {
    const runtime = await this.#runtime(params.cwd, params.mcpServers);
    if (!(await runtime.sessions.exists(params.sessionId).catch(() => false))) {
      throw acp.RequestError.resourceNotFound(params.sessionId);
    }
    const id = params.sessionId;
    // Open in this connection already: its turn ends and its writes land before the file is read.
    const open = this.#sessions.get(id);
    open?.cancel();
    await open?.session.sync().catch(() => {});
    const log = await runtime.sessions.openOrCreate(id);
    const session = this.#open({ id, runtime, client, session: log, resumed: true });
    for (const update of replayUpdates(session.session.data.messages, session.updates)) {
      session.send(update);
    }
    await session.flushed();
    const { sessionId: _, ...rest } = this.#described(session);
    return rest;
  }

  async listSessions(params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
    const runtime = await this.#runtime(params.cwd ?? Deno.cwd(), []);
    return await listSessions(runtime, { cursor: params.cursor ?? undefined });
  }

  async prompt(params: acp.PromptRequest, signal: AbortSignal): Promise<acp.PromptResponse> {
    const session = this.#session(params.sessionId);
    const typed = params.prompt.every((block) => block.type === "text")
      ? params.prompt.map((block) => (block as acp.TextContent).text).join("\n\n")
      : "";
    const slash = slashCommand(typed);
    if (slash) {
      const reply = await slash.command.run(session, slash.args, signal);
      session.send({ sessionUpdate: "agent_message_chunk", content: text(reply) });
      await session.flushed();
      return { stopReason: "end_turn" };
    }
    const images = promptImages(params.prompt);
    if ("problem" in images) throw acp.RequestError.invalidParams(undefined, images.problem);
    // A model that takes no images: refused before the turn, in the engine's words.
    const refused = images.length ? await (await session.engine()).refuseImages(images) : null;
    if (refused) throw acp.RequestError.invalidParams(undefined, refused);
    const prompt = await promptText(params.prompt, (path) => session.readLinked(path, signal));
    if (typeof prompt !== "string") throw acp.RequestError.invalidParams(undefined, prompt.problem);
    const result = await session.prompt(prompt, { signal, images });
    const reason = stopReason(result);
    if (reason) return { stopReason: reason };
    const why = result.errors.map((e) => e.message).join("; ") || result.reason;
    throw acp.RequestError.internalError({ status: result.status, reason: result.reason }, why);
  }

  cancel(params: acp.CancelNotification): void {
    this.#sessions.get(params.sessionId)?.cancel();
  }

  setMode(params: acp.SetSessionModeRequest): acp.SetSessionModeResponse {
    const mode = params.modeId;
    if (mode !== "plan" && mode !== "build") {
      throw acp.RequestError.invalidParams(undefined, `unknown mode ${mode}; use plan or build`);
    }
    this.#session(params.sessionId).configure({ mode: mode as Mode });
    return {};
  }

  async setConfigOption(
    params: acp.SetSessionConfigOptionRequest,
  ): Promise<acp.SetSessionConfigOptionResponse> {
    const session = this.#session(params.sessionId);
    if (params.configId !== "model" || typeof params.value !== "string") {
      throw acp.RequestError.invalidParams(undefined, `unknown config option ${params.configId}`);
    }
    session.configure({ model: params.value });
    try {
      await session.engine();
    } catch (err) {
      throw acp.RequestError.invalidParams(undefined, (err as Error).message);
    }
    return { configOptions: await modelOption(session) };
  }

  #session(id: string): AcpSession {
    const session = this.#sessions.get(id);
    if (!session) throw acp.RequestError.resourceNotFound(id);
    return session;
  }

  /** The session's ACP face: a new session's, and opened in the runtime. */
  #open(
    parts: { id: string; runtime: Runtime; client: Client; session: SessionLog; resumed: boolean },
  ): AcpSession {
    const { id, runtime, client } = parts;
    this.#sessions.get(id)?.cancel();
    const session = new AcpSession({
      id,
      runtime,
      session: parts.session,
      resumed: parts.resumed,
      approver: editorApprover({
        sessionId: id,
        ask: (request, signal) =>
          client.request("session/request_permission", request, { cancellationSignal: signal }),
        updates: {
          worktree: runtime.worktree,
          category: (tool) => runtime.toolView().resolve(tool)?.category,
        },
        timeoutS: runtime.config.approval_timeout,
      }),
      files: new EditorFiles(client, { sessionId: id, fs: this.#clientCapabilities.fs }),
      ...(this.#clientCapabilities.terminal
        ? { terminal: (started) => editorTerminal(client, { sessionId: id, started }) }
        : {}),
      notify: (update) => client.notify("session/update", { sessionId: id, update }),
      log: (message) => this.#options.log(`${id}: ${message}`),
    });
    this.#sessions.set(id, session);
    // After the response: the editor knows the session when the commands arrive.
    setTimeout(() => {
      session.send({
        sessionUpdate: "available_commands_update",
        availableCommands: availableCommands(),
      });
    }, 0);
    return session;
  }

  #described(session: AcpSession): acp.NewSessionResponse {
    return {
      sessionId: session.id,
      modes: { currentModeId: session.mode, availableModes: MODES },
      configOptions: modelOptionNow(session),
    };
  }

  /** The runtime of a worktree with the editor's MCP servers, loaded once and started. */
  #runtime(cwd: string, servers: readonly acp.McpServer[]): Promise<Runtime> {
    const entries = mcpEntries(servers);
    if ("problem" in entries) throw acp.RequestError.invalidParams(undefined, entries.problem);
    const key = JSON.stringify([cwd, entries]);
    let runtime = this.#runtimes.get(key);
    if (!runtime) {
      runtime = loadRuntime(
        { ...this.#options.init, path: cwd, mcpServers: entries },
        this.#options.log,
      );
      runtime.catch(() => this.#runtimes.delete(key));
      this.#runtimes.set(key, runtime);
    }
    return runtime;
  }
}

async function loadRuntime(init: RuntimeInit, log: (message: string) => void): Promise<Runtime> {
  let runtime: Runtime;
  try {
    runtime = await Runtime.load(init);
  } catch (err) {
    throw acp.RequestError.internalError(undefined, (err as Error).message);
  }
  for (const warning of runtime.warnings) log(`warning: ${warning}`);
  for (const warning of await runtime.start()) log(`warning: ${warning}`);
  return runtime;
}

/** The model selector: the session's model and those chosen in it. */
function modelOptionNow(session: AcpSession): acp.SessionConfigOption[] {
  const current = session.model ?? session.runtime.config.model ?? "";
  if (!current) return [];
  const values = [...new Set([current, ...session.models])];
  return [{
    type: "select",
    id: "model",
    name: "Model",
    category: "model",
    currentValue: current,
    options: values.map((value) => ({ value, name: value })),
  }];
}

async function modelOption(session: AcpSession): Promise<acp.SessionConfigOption[]> {
  await session.engine().catch(() => undefined);
  return modelOptionNow(session);
}
