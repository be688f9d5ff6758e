/** Builds a real engine through the runtime layer against the scripted fake provider. */
import * as z from "zod";
import type { Catalog } from "../../src/catalog/types.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { Engine } from "../../src/engine/engine.ts";
import type { EngineOverrides } from "../../src/engine/deps.ts";
import { createChatClient } from "../../src/provider/sse_client.ts";
import { Runtime } from "../../src/runtime/runtime.ts";
import type { SessionStore } from "../../src/session/store.ts";
import type { Approver } from "../../src/tool/approval.ts";
import type { ToolRegistry } from "../../src/tool/registry.ts";
import type { Tool } from "../../src/tool/types.ts";
import type { ServiceDef } from "../../src/plugin/api.ts";
import { emptyLoadResult, type LoadResult } from "../../src/plugin/load.ts";
import { type FakeProvider, type Reply, startFakeProvider } from "./fake_provider.ts";
import type { Clock } from "../../src/util/time.ts";

export interface Harness {
  engine: Engine;
  runtime: Runtime;
  fake: FakeProvider;
  worktree: string;
  store: SessionStore;
  registry: ToolRegistry;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A tool that echoes its text argument; category chosen per test. */
export function echoTool(name = "echo", category: Tool["category"] = "read"): Tool {
  return {
    name,
    category,
    description: "Echo text back",
    schema: z.object({ text: z.string(), path: z.string().optional() }),
    aliases: [`${name}_alias`],
    argAliases: { words: "text" },
    pathArgs: ["path"],
    run: (args) => Promise.resolve(`echo: ${JSON.stringify(args)}`),
  };
}

/** Starts a fake provider and a runtime (with one engine) over a fresh temp worktree. */
export async function harness(
  script: Reply[] | ((body: Record<string, unknown>, index: number) => Reply),
  options: {
    config?: Record<string, unknown>;
    tools?: Tool[];
    approver?: Approver;
    files?: Record<string, string>;
    trusted?: boolean;
    services?: ServiceDef[];
    engine?: EngineOverrides;
    /** Provider id the client and engine use (its payload mapping applies); default generic. */
    provider?: string;
    /** Agent types, teams and skills (see `catalogOf`). */
    catalog?: Catalog;
    /** Loaded plugins: their tools (before `tools`), services and owners join the runtime. */
    plugins?: LoadResult;
    /** The engines' clock (the environment block's date). */
    clock?: Clock;
    /** Extra fields of the fake provider's `/v1/models` entry (`architecture`, ...). */
    modelEntry?: Record<string, unknown>;
  } = {},
): Promise<Harness> {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-engine-" }));
  for (const [name, content] of Object.entries(options.files ?? {})) {
    await Deno.writeTextFile(`${worktree}/${name}`, content);
  }
  const fake = await startFakeProvider(script, { entry: options.modelEntry });
  const config = ConfigSchema.parse({
    stream_retry_delay: 0.01,
    stream_idle_timeout: 5,
    ...options.config,
  });
  const provider = options.provider ?? "generic";
  const client = createChatClient({
    provider,
    baseUrl: fake.url,
    apiKey: "",
    streamRetries: config.stream_retries,
    retryDelay: config.stream_retry_delay,
    idleTimeout: config.stream_idle_timeout,
  });
  const runtime = new Runtime({
    worktree,
    config,
    trusted: options.trusted,
    tools: [...options.plugins?.tools ?? [], ...options.tools ?? [echoTool()]],
    owners: options.plugins?.owners,
    plugins: options.plugins ??
      { ...emptyLoadResult(), services: options.services ?? [] },
    catalog: options.catalog,
    clock: options.clock,
    connection: {
      provider,
      baseUrl: fake.url,
      model: "fake-model",
      apiKey: "",
      unfolded: false,
      warnings: [],
      client,
    },
  });
  const engine = await runtime.engine({ approver: options.approver, ...options.engine });
  return {
    engine,
    runtime,
    fake,
    worktree,
    store: runtime.sessions,
    registry: runtime.registry,
    async [Symbol.asyncDispose]() {
      await fake.close();
      await Deno.remove(worktree, { recursive: true });
    },
  };
}

/** Reads a stored session file as plain JSON (what any other program would see). */
export async function readStored(h: Harness, name: string) {
  return JSON.parse(await Deno.readTextFile(`${h.worktree}/.svc/sessions/${name}.json`));
}
