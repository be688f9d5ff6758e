/** Builds a real engine against the scripted fake provider in a temp worktree. */
import { z } from "zod";
import { ConfigSchema } from "../../src/config/schema.ts";
import { Engine } from "../../src/engine/engine.ts";
import { askTool } from "../../src/engine/ask.ts";
import type { Approver, EngineDeps } from "../../src/engine/context_types.ts";
import { createChatClient } from "../../src/provider/sse_client.ts";
import { SessionStore } from "../../src/session/store.ts";
import { ToolRegistry } from "../../src/tool/registry.ts";
import type { Tool } from "../../src/tool/types.ts";
import { type FakeProvider, type Reply, startFakeProvider } from "./fake_provider.ts";

export interface Harness {
  engine: Engine;
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

/** Starts a fake provider and an engine over a fresh temp worktree. */
export async function harness(
  script: Reply[] | ((body: Record<string, unknown>, index: number) => Reply),
  options: {
    config?: Record<string, unknown>;
    tools?: Tool[];
    approve?: Approver;
    files?: Record<string, string>;
    deps?: Partial<EngineDeps>;
    /** Provider id the client and engine use (its payload mapping applies); default generic. */
    provider?: string;
  } = {},
): Promise<Harness> {
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-engine-" }));
  for (const [name, content] of Object.entries(options.files ?? {})) {
    await Deno.writeTextFile(`${worktree}/${name}`, content);
  }
  const fake = await startFakeProvider(script);
  const config = ConfigSchema.parse({
    stream_retry_delay: 0.01,
    stream_idle_timeout: 5,
    ...options.config,
  });
  const registry = new ToolRegistry();
  registry.add(askTool);
  for (const tool of options.tools ?? [echoTool()]) registry.add(tool);
  const provider = options.provider ?? "generic";
  const client = createChatClient({
    provider,
    baseUrl: fake.url,
    apiKey: "",
    streamRetries: config.stream_retries,
    retryDelay: config.stream_retry_delay,
    idleTimeout: config.stream_idle_timeout,
  });
  const engine = new Engine({
    config,
    worktree,
    client,
    model: "fake-model",
    provider,
    registry,
    headless: true,
    approve: options.approve,
    ...options.deps,
  });
  return {
    engine,
    fake,
    worktree,
    store: new SessionStore(worktree),
    registry,
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
