import { loadConfigReport, type LoadedConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { loadCatalog } from "../catalog/load.ts";
import type { Catalog } from "../catalog/types.ts";
import { askTool } from "../engine/ask.ts";
import { delegateTool } from "../engine/delegate.ts";
import type { AgentSupport, EngineOverrides, ToolSource } from "../engine/deps.ts";
import { Engine, type EngineFactory } from "../engine/engine.ts";
import { emptyLoadResult, loadPlugins, type LoadResult } from "../plugin/load.ts";
import { leftOutWarning } from "../plugin/left_out.ts";
import type { Connection } from "../provider/connect.ts";
import type { SessionLog } from "../session/log.ts";
import { MemorySession } from "../session/memory.ts";
import { subAgentName } from "../session/naming.ts";
import { SessionStore } from "../session/store.ts";
import { denyAll } from "../tool/approval.ts";
import {
  type ConfiguredApproverParts,
  withConfiguredApprover,
} from "../tool/configured_approver.ts";
import { configuredElicitation } from "../tool/elicitation_approver.ts";
import { toolContext } from "../tool/context.ts";
import { HookRunner, type HooksConfig } from "../tool/hooks.ts";
import { prepareSchemas, ToolRegistry } from "../tool/registry.ts";
import { ToolSet } from "../tool/tool_set.ts";
import type { Tool, ToolHost } from "../tool/types.ts";
import {
  type ConfirmModel,
  type ConnectedModel,
  connectModel,
  type ModelChoice,
} from "./connection.ts";
import { applyOverrides } from "./overrides.ts";
import { noModel } from "./no_model.ts";
import { resolveWorktree } from "./worktree.ts";
import { withAddedServers } from "./added_servers.ts";
import { join } from "../util/posix_path.ts";
import type { Clock } from "../util/time.ts";

/** What a front-end loads a runtime from: the worktree and the backend flags. */
export interface RuntimeInit {
  /** Worktree (`--path`); default the current directory. */
  path?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  /** `--approve-model`: approve a model that an agent type or team names. */
  approveModel?: boolean;
  /**
   * An interactive front-end's question for the model approval gate (the REPL): a configured
   * ref, a `/model` ref and the type models of a team or sub-agent are asked about, not refused.
   */
  confirmModel?: ConfirmModel;
  /**
   * Told each connection's warnings (no API key stored for its provider, a stored key withheld
   * from an untrusted base_url) once, when the connection resolves. The REPL prints them itself.
   */
  warn?: (message: string) => void;
  /**
   * MCP servers added over the config's `mcp.servers` (an ACP editor's), as entries of that key;
   * connected when the runtime starts (added_servers.ts).
   */
  mcpServers?: readonly unknown[];
}

/** A runtime assembled from parts already in memory (tests, eval trials, embedding). */
export interface RuntimeParts {
  worktree: string;
  config: Config;
  trusted?: boolean;
  tools: readonly Tool[];
  /** Owner (plugin name) of each tool, for the host interface; default the tool's own name. */
  owners?: ReadonlyMap<string, string>;
  plugins?: LoadResult;
  sessions?: SessionStore;
  /** A connection already resolved; without one, `connect` resolves from the config. */
  connection?: ConnectedModel;
  warnings?: string[];
  init?: RuntimeInit;
  loaded?: Partial<Pick<LoadedConfig, "untrustedBaseUrlFile" | "worktreeKeys" | "modelWith">>;
  /** The agent catalogs, when already loaded (tests, eval trials). */
  catalog?: Catalog;
  /** The time engines take the environment block's date from; default real time (tests). */
  clock?: Clock;
}

/**
 * The composition root every front-end uses: one worktree's config, plugins, base tool registry
 * and session store, loaded once; connections (the model approval gate included) and engines
 * built from overrides. Tools added at run time (`ToolSet`) live as long as the runtime.
 */
export class Runtime implements EngineFactory {
  readonly worktree: string;
  readonly config: Config;
  readonly trusted: boolean;
  /** The keys an untrusted worktree's own config set (LoadedConfig.worktreeKeys). */
  readonly worktreeKeys: readonly string[];
  /** The base tool registry, built once from the plugins; sealed. */
  readonly registry: ToolRegistry;
  /** Tools added at run time through the host interface. */
  readonly added: ToolSet;
  readonly plugins: LoadResult;
  readonly warnings: string[];
  readonly init: RuntimeInit;
  #sessions?: SessionStore;
  #owners: ReadonlyMap<string, string>;
  #connections = new Map<string, Promise<ConnectedModel>>();
  #untrustedBaseUrlFile?: string;
  #modelWith?: LoadedConfig["modelWith"];
  #catalog?: Promise<Catalog>;
  readonly #clock?: Clock;
  /** Sub-agent session names handed out by this process (two in one second get `_2`, ...). */
  #subNames = new Set<string>();
  readonly #agents: AgentSupport = {
    catalog: () => this.catalog(),
    openSubSession: (parent) => this.#openSubSession(parent),
    checkModel: async (model) => {
      await this.connect({ model, modelFrom: "type" });
    },
  };
  #started?: Promise<string[]>;
  #hooks?: HookRunner | null;

  constructor(parts: RuntimeParts) {
    this.worktree = parts.worktree;
    this.config = parts.config;
    this.trusted = parts.trusted ?? false;
    this.registry = new ToolRegistry();
    this.registry.add(askTool);
    // The environment block names the types unless `context.agents` turns its line off.
    this.registry.add(delegateTool(parts.catalog ? [...parts.catalog.types.values()] : [], {
      inEnvironment: parts.config["context.agents"] !== false,
    }));
    for (const tool of parts.tools) this.registry.add(tool);
    this.registry.seal();
    this.added = new ToolSet((name) => this.registry.resolve(name) !== undefined);
    this.#owners = parts.owners ?? new Map();
    this.plugins = parts.plugins ?? emptyLoadResult();
    this.#sessions = parts.sessions;
    this.warnings = parts.warnings ?? [];
    this.init = parts.init ?? {};
    this.#untrustedBaseUrlFile = parts.loaded?.untrustedBaseUrlFile;
    this.worktreeKeys = parts.loaded?.worktreeKeys ?? [];
    this.#modelWith = parts.loaded?.modelWith;
    if (parts.connection) this.#connections.set("", Promise.resolve(parts.connection));
    if (parts.catalog) this.#catalog = Promise.resolve(parts.catalog);
    this.#clock = parts.clock;
  }

  /** Loads a worktree's config (with the flags as overrides), plugins and session store. */
  static async load(init: RuntimeInit = {}): Promise<Runtime> {
    const worktree = resolveWorktree(init.path);
    const overrides: Record<string, unknown> = {};
    if (init.provider) overrides.provider = init.provider;
    if (init.model) overrides.model = init.model;
    if (init.baseUrl) overrides.base_url = init.baseUrl;
    if (init.provider && !init.baseUrl) overrides.base_url = undefined;
    // `--base-url` alone names a server: its provider is detected from the address, so neither
    // the config's provider name nor its stored key goes with it.
    if (init.baseUrl && !init.provider) overrides.provider = undefined;
    const loaded = await loadConfigReport(worktree, overrides);
    const { trusted } = loaded;
    const config = await withAddedServers(loaded.config, init.mcpServers);
    const plugins = await loadPlugins({ worktree, names: config.plugins, trustLocal: trusted });
    // Loaded now, not on first use: the delegate tool's description names the types.
    const catalog = await loadCatalog({ worktree, trusted, plugins });
    const warnings = [
      ...loaded.warnings,
      ...plugins.plugins.filter((p) => p.status === "errored" || p.status === "skipped")
        .map((p) => `plugin ${p.name}: ${p.message}`),
      ...[leftOutWarning(config.plugins, plugins.plugins) ?? []].flat(),
      ...catalog.warnings,
    ];
    const runtime = new Runtime({
      worktree,
      config,
      trusted,
      tools: plugins.tools,
      owners: plugins.owners,
      plugins,
      sessions: new SessionStore(worktree, { confine: !trusted }),
      warnings,
      init,
      loaded,
      catalog,
    });
    // The advertised tool schemas: remembered by an installed build, else built with zod now.
    await prepareSchemas(runtime.registry.list());
    return runtime;
  }

  /**
   * A sub-agent's session, linked both ways: `sub_<timestamp>_<parent>` with `parent_id`, and
   * listed in the parent's `sub_sessions`. In memory when the parent is.
   */
  async #openSubSession(parent: SessionLog): Promise<SessionLog> {
    const base = subAgentName(parent.name);
    let name = base;
    for (
      let n = 2;
      this.#subNames.has(name) || (parent.path && await this.sessions.exists(name));
      n++
    ) {
      name = `${base}_${n}`;
    }
    this.#subNames.add(name);
    const session = parent.path
      ? this.sessions.create(name, { parent_id: parent.name })
      : new MemorySession(name, { parent_id: parent.name });
    await parent.addSubSession(session.name);
    return session;
  }

  /** The worktree's sessions (`.svc/sessions`). */
  get sessions(): SessionStore {
    return this.#sessions ??= new SessionStore(this.worktree, { confine: !this.trusted });
  }

  /**
   * The worktree's agent types, teams and skills (bundled < plugin < global < local, trust
   * applied), loaded on first use and then kept; broken files are in its `warnings`.
   */
  catalog(): Promise<Catalog> {
    return this.#catalog ??= loadCatalog({
      worktree: this.worktree,
      trusted: this.trusted,
      plugins: this.plugins,
    });
  }

  /** Tools of the base registry plus those added at run time. */
  get source(): ToolSource {
    return { tools: () => this.added.tools() };
  }

  /** The tool view outside a turn (served MCP calls): base plus added tools, now. */
  toolView(): ToolRegistry {
    const extra = this.added.tools();
    return extra.length ? this.registry.with(extra) : this.registry;
  }

  /** The host interface of a tool's plugin: it adds and removes only that plugin's tools. */
  hostFor(tool: Tool): ToolHost {
    return this.added.host(this.#owners.get(tool.name) ?? tool.name);
  }

  /**
   * Starts the plugin services that have a `start` (the MCP client's `autoconnect`), once per
   * runtime and all at once; resolves to their warnings. The first engine waits for it, so a
   * front-end that shows warnings calls it before building one.
   */
  start(): Promise<string[]> {
    return this.#started ??= this.#startServices();
  }

  async #startServices(): Promise<string[]> {
    const { services, serviceOwners } = this.plugins;
    const started = services.filter((service) => service.start).map(async (service) => {
      const host = this.added.host(serviceOwners.get(service) ?? service.name);
      const context = { worktree: this.worktree, config: this.config, trusted: this.trusted, host };
      try {
        return (await service.start!(context)) ?? [];
      } catch (err) {
        return [`service ${service.name} start failed: ${(err as Error).message}`];
      }
    });
    return (await Promise.all(started)).flat();
  }

  /**
   * A connection to a model backend with the approval gate passed: the config's (with the
   * runtime's flags), or another provider or model. Resolved once per choice.
   */
  connect(choice: ModelChoice = {}): Promise<ConnectedModel> {
    const key = choice.provider || choice.model ? JSON.stringify(choice) : "";
    let connected = this.#connections.get(key);
    if (!connected) {
      connected = connectModel(this.config, this.plugins.providers, {
        ...choice,
        explicit: key === "" ? Boolean(this.init.model) : choice.modelFrom === "flag",
        approveModel: choice.approveModel ?? this.init.approveModel,
        untrustedBaseUrlFile: this.#untrustedBaseUrlFile,
        confirm: this.init.confirmModel,
        explicitBaseUrl: Boolean(this.init.baseUrl),
        modelWith: this.#modelWith,
      });
      connected.then(
        ({ warnings }) => warnings.forEach((warning) => this.init.warn?.(warning)),
        () => this.#connections.delete(key),
      );
      this.#connections.set(key, connected);
    }
    return connected;
  }

  /**
   * The worktree's hooks: the config's `hooks` (trust applied when it was loaded) and those the
   * plugins registered; undefined when there are none.
   */
  get hooks(): HookRunner | undefined {
    if (this.#hooks === undefined) {
      const plugins = this.plugins.pluginHooks ?? [];
      const configured = Object.keys(this.config.hooks ?? {}).length > 0;
      this.#hooks = configured || plugins.length
        ? new HookRunner(this.worktree, { config: this.config.hooks as HooksConfig, plugins })
        : null;
    }
    return this.#hooks ?? undefined;
  }

  /**
   * The configured approver's parts: PermissionRequest and Elicitation hooks; in a headless engine
   * also the permission-prompt MCP tool. Tool calls go to it behind a flag approver (`--yes`,
   * `--no`: kept as they are), servers' questions through `configuredElicitation`.
   */
  #approverParts(options: { headless: boolean; mcpTool?: string }): ConfiguredApproverParts {
    return {
      hooks: this.hooks,
      transcript: (name) => join(this.sessions.dir, `${name}.json`),
      permissionMode: this.config.mode === "plan" ? "plan" : "default",
      mcpTool: options.headless ? options.mcpTool : undefined,
      resolve: (name) => this.toolView().resolve(name),
      category: (name) => this.toolView().resolve(name)?.category ?? "unknown",
      context: (signal) =>
        toolContext({
          worktree: this.worktree,
          config: this.config,
          trusted: this.trusted,
          headless: true,
          session: "approver",
          signal,
        }),
      timeoutS: this.config.approval_timeout,
    };
  }

  /** An engine with `overrides` over `parent`'s settings, or over the runtime's own. */
  async engine(overrides: EngineOverrides = {}, parent?: Engine): Promise<Engine> {
    if (!parent) await this.start();
    const newModel = Boolean(overrides.provider || overrides.model);
    const connection: Pick<Connection, "provider" | "model"> & Pick<ConnectedModel, "client"> =
      newModel || !parent
        ? await this.connect(
          newModel
            ? {
              provider: overrides.provider,
              model: overrides.model,
              modelFrom: overrides.modelFrom ?? "type",
              approveModel: overrides.approveModel,
            }
            : {},
        )
        : parent.deps;
    return this.#build(overrides, { connection, parent });
  }

  /**
   * An engine that runs tools without a model backend (the REPL's `/tool` before one is
   * configured): any model call it makes fails with `reason`.
   */
  async toolEngine(overrides: EngineOverrides, reason: string): Promise<Engine> {
    await this.start();
    return this.#build(overrides, { connection: noModel(reason) });
  }

  #build(
    overrides: EngineOverrides,
    { connection, parent }: {
      connection: Pick<Connection, "provider" | "model"> & Pick<ConnectedModel, "client">;
      parent?: Engine;
    },
  ): Engine {
    const approver = this.#approverParts({
      headless: overrides.headless ?? parent?.deps.headless ?? true,
      mcpTool: overrides.permissionPromptTool ?? parent?.deps.permissionPromptTool ??
        this.config["approver.mcp_tool"],
    });
    return new Engine({
      config: applyOverrides(parent?.deps.config ?? this.config, overrides),
      worktree: this.worktree,
      trusted: this.trusted,
      worktreeKeys: this.worktreeKeys,
      client: connection.client,
      model: connection.model,
      provider: connection.provider,
      tools: {
        base: this.registry,
        sources: [...(parent?.deps.tools.sources ?? [this.source]), ...(overrides.sources ?? [])],
        hostFor: (tool) => this.hostFor(tool),
      },
      headless: overrides.headless ?? parent?.deps.headless ?? true,
      approver: withConfiguredApprover(overrides.approver ?? denyAll, approver),
      elicitation: configuredElicitation(approver),
      permissionPromptTool: overrides.permissionPromptTool ?? parent?.deps.permissionPromptTool,
      hooks: this.hooks,
      askHuman: overrides.askHuman ?? parent?.deps.askHuman,
      files: overrides.files ?? parent?.deps.files,
      terminal: overrides.terminal ?? parent?.deps.terminal,
      lead: overrides.lead,
      typePrompt: overrides.typePrompt,
      session: overrides.session,
      depth: parent ? parent.deps.depth + 1 : 0,
      agents: this.#agents,
      ...(this.#clock ? { clock: this.#clock } : {}),
    }, this);
  }
}
