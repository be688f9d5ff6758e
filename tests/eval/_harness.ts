/**
 * The eval's parts over the scripted provider: the bundled plugins' real tools, the eval config
 * and a target per model name, without the command line.
 */
import { join } from "node:path";
import { BUNDLED_PLUGINS, ConfigSchema } from "../../src/config/schema.ts";
import { type Fixture, parseFixture } from "../../src/eval/fixture.ts";
import { evalConfig, type EvalSetup, type EvalTarget } from "../../src/eval/trial.ts";
import { loadPlugins } from "../../src/plugin/load.ts";
import { createChatClient } from "../../src/provider/sse_client.ts";
import { type FakeProvider, type Reply, startFakeProvider } from "../_support/fake_provider.ts";

export interface EvalHarness {
  fake: FakeProvider;
  setup: EvalSetup;
  /** A target on the fake provider under this model name. */
  target(model?: string): EvalTarget;
  /** The bundled fixtures by id, validated. */
  bundled: Map<string, Fixture>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts the scripted provider and loads the bundled plugins (no global or local plugins). */
export async function evalHarness(
  script: Reply[] | ((body: Record<string, unknown>, index: number) => Reply),
  options: { config?: Record<string, unknown> } = {},
): Promise<EvalHarness> {
  const fake = await startFakeProvider(script);
  const base = await Deno.makeTempDir({ prefix: "svc-eval-test-" });
  const plugins = await loadPlugins({
    worktree: base,
    globalDir: join(base, "global"),
    names: BUNDLED_PLUGINS,
    trustLocal: false,
  });
  const config = evalConfig(ConfigSchema.parse({
    stream_retry_delay: 0.01,
    stream_idle_timeout: 5,
    ...options.config,
  }));
  const client = createChatClient({
    provider: "generic",
    baseUrl: fake.url,
    apiKey: "",
    streamRetries: config.stream_retries,
    retryDelay: config.stream_retry_delay,
    idleTimeout: config.stream_idle_timeout,
  });
  return {
    fake,
    setup: { tools: plugins.tools, owners: plugins.owners, config },
    target: (model = "fake-model") => ({
      connection: {
        provider: "generic",
        baseUrl: fake.url,
        model,
        apiKey: "",
        unfolded: false,
        warnings: [],
        client,
      },
    }),
    bundled: new Map(
      plugins.fixtures.map((raw) => {
        const fixture = parseFixture(raw, "bundled");
        return [fixture.id, fixture];
      }),
    ),
    async [Symbol.asyncDispose]() {
      await fake.close();
      await Deno.remove(base, { recursive: true });
    },
  };
}

/** Limits roomy enough for any scripted agent. */
export const LIMITS = { maxRounds: 10, timeoutMs: 10_000 };
