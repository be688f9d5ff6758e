import assert from "node:assert/strict";
import {
  imagesOfEntry,
  probeContextWindow,
  probeImageInput,
  windowOfEntry,
} from "../../src/provider/model_facts.ts";
import { compactionNote, contextFigure, tokenFigure } from "../../src/runtime/context_figure.ts";

/** A backend answering `/v1/models` and `/props` from `routes`; counts the requests. */
function backend(routes: Record<string, unknown>) {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    seen.push(path);
    return path in routes ? Response.json(routes[path]) : new Response("no", { status: 404 });
  });
  const url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  return { url, seen, [Symbol.asyncDispose]: () => server.shutdown() };
}

Deno.test("the window comes from the model's /v1/models entry (context_length, max_model_len), the list asked once", async () => {
  await using b = backend({
    "/v1/models": {
      data: [{ id: "a", context_length: 131072 }, { id: "b", max_model_len: 16384 }],
    },
  });
  const target = { baseUrl: b.url, apiKey: "" };
  assert.equal(await probeContextWindow(target, "a"), 131072);
  assert.equal(await probeContextWindow(target, "b"), 16384);
  assert.equal(await probeContextWindow(target, "a"), 131072);
  assert.deepEqual(b.seen, ["/v1/models"], "asked once per process and address");
});

Deno.test("without a window in /v1/models, llama.cpp's /props n_ctx is used, else none", async () => {
  await using b = backend({
    "/v1/models": { data: [{ id: "m", meta: { n_ctx_train: 131072 } }] },
    "/props": { default_generation_settings: { n_ctx: 8192 } },
  });
  assert.equal(await probeContextWindow({ baseUrl: `${b.url}/v1`, apiKey: "" }, "m"), 8192);
  await using none = backend({});
  assert.equal(await probeContextWindow({ baseUrl: none.url, apiKey: "" }, "m"), null);
  assert.equal(windowOfEntry({ id: "x", context_window: 200000 }), 200000);
  assert.equal(windowOfEntry({ id: "x", context_length: "big" }), null);
});

Deno.test("image input is read from the model's entry, else llama.cpp's /props, else unknown", async () => {
  await using b = backend({
    "/v1/models": {
      data: [
        { id: "vision", architecture: { input_modalities: ["text", "image"] } },
        { id: "text", architecture: { input_modalities: ["text"] } },
        { id: "silent" },
      ],
    },
    "/props": { modalities: { vision: true } },
  });
  const target = { baseUrl: b.url, apiKey: "" };
  assert.deepEqual(
    [
      await probeImageInput(target, "vision"),
      await probeImageInput(target, "text"),
      await probeImageInput(target, "silent"),
    ],
    [true, false, true],
  );
  assert.deepEqual(b.seen, ["/v1/models", "/props"], "each address asked once");
  await using none = backend({ "/v1/models": { data: [{ id: "m" }] } });
  assert.equal(await probeImageInput({ baseUrl: none.url, apiKey: "" }, "m"), null);
  assert.deepEqual(
    [
      { id: "a", capabilities: ["completion", "vision"] },
      { id: "b", capabilities: { vision: false } },
      { id: "c", type: "vlm" },
      { id: "d", supports_vision: true },
      { id: "e", modalities: { input: ["text"] } },
      { id: "f", capabilities: "vision" },
    ].map(imagesOfEntry),
    [true, false, true, true, false, null],
  );
});

Deno.test("context figures read as svc run --verbose prints them", () => {
  assert.equal(tokenFigure(950), "950");
  assert.equal(tokenFigure(12_345), "12.3k");
  assert.equal(tokenFigure(32_768), "32k");
  assert.equal(
    contextFigure({ estimated_tokens: 12_345, window: 32_768 }),
    "context: ~12.3k of 32k tokens",
  );
  assert.equal(contextFigure({ estimated_tokens: 10, window: null }), "context: ~10 tokens");
  assert.equal(
    compactionNote({
      type: "compaction",
      trigger: "auto",
      reason: "threshold",
      summarized: 40,
      kept: 4,
      estimated_tokens: 26_500,
      window: 32_768,
    }),
    "compacted the context (the request neared the context window at ~26.5k of 32k tokens): " +
      "40 messages summarized, 4 kept verbatim",
  );
});
