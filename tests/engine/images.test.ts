// deno-lint-ignore-file no-explicit-any
/**
 * Images in prompts and tool results reach a model that takes them as image parts, and never a
 * model that does not: its prompt is refused before anything is sent, and a tool's image becomes
 * a note naming it.
 */
import assert from "node:assert/strict";
import { harness, readStored } from "../_support/engine.ts";
import { buildContext } from "../../src/engine/context.ts";
import { requestContext } from "../../src/engine/context_size.ts";
import type { Tool, ToolImage } from "../../src/tool/types.ts";
import { imageFromBytes } from "../../src/tool/images.ts";
import * as z from "zod";

/** A 1x1 PNG. */
const PNG = Uint8Array.fromBase64(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
);
const IMAGE: ToolImage = { ...imageFromBytes(PNG), name: "dot.png" };
const DATA_URL = `data:image/png;base64,${IMAGE.data}`;
/** The chat requests the fake provider received (not its /v1/models lookups). */
const chats = (h: { fake: { requests: Array<{ method: string; body: any }> } }) =>
  h.fake.requests.filter((r) => r.method === "POST");
const VISION = { architecture: { input_modalities: ["text", "image"] } };

/** A tool that returns the PNG as its image, as file_read does for an image file. */
const screenshot: Tool = {
  name: "screenshot",
  category: "read",
  description: "Take a screenshot",
  schema: z.object({}),
  run: () =>
    Promise.resolve({ content: "screen: image/png, attached as an image", images: [IMAGE] }),
};

Deno.test("a prompt's image goes to a model that takes images as an image part after the text, and the session keeps it", async () => {
  await using h = await harness([{ text: "A dot." }], { modelEntry: VISION });
  const session = h.store.create("img");
  const result = await h.engine.runTurn("what is this?", { session, images: [IMAGE] });
  assert.equal(result.status, "ok");
  const sent = chats(h)[0].body.messages.at(-1);
  assert.deepEqual(sent, {
    role: "user",
    content: [
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: DATA_URL } },
    ],
  });
  const stored = await readStored(h, "img");
  assert.deepEqual(stored.messages[0].images, [IMAGE]);
  assert.deepEqual(await h.engine.imageInput(), { accepted: true, source: "backend" });
});

Deno.test("a prompt with an image to a model that does not say it takes images is refused before anything is sent, saying how to allow it", async () => {
  await using h = await harness([{ text: "never" }]);
  const session = h.store.create("text");
  const events: string[] = [];
  const result = await h.engine.runTurn("what is this?", {
    session,
    images: [IMAGE],
    onEvent: (e) => events.push(e.type),
  });
  assert.equal(result.status, "error");
  assert.equal(result.reason, "setup_error");
  assert.equal(result.errors.length, 1);
  assert.equal(result.errors[0].code, "images_not_accepted");
  assert.match(
    result.errors[0].message,
    /^model generic\/fake-model does not accept images \(its backend does not say it takes images\), so dot\.png \(image\/png, \d+ B\) cannot be sent; use a model that does, or if this one does, set "images": true on its entry in .*models\.json \(docs\/providers\.md#images\)$/,
  );
  assert.deepEqual(events, ["session", "error", "done"]);
  assert.deepEqual(chats(h), []);
  assert.deepEqual(session.data.messages, []);
});

Deno.test("a tool's image follows the round's tool results as a user message to a model that takes images, and is a note to one that does not", async () => {
  const script = [
    { tool_calls: [{ name: "screenshot", arguments: {}, id: "c1" }] },
    { text: "I see a dot." },
  ];
  await using vision = await harness(script, { tools: [screenshot], modelEntry: VISION });
  const a = vision.store.create("a");
  assert.equal((await vision.engine.runTurn("look", { session: a })).status, "ok");
  assert.deepEqual(chats(vision)[1].body.messages.slice(-2), [
    { role: "tool", tool_call_id: "c1", content: "screen: image/png, attached as an image" },
    {
      role: "user",
      content: [
        { type: "text", text: "[the image screenshot returned above]" },
        { type: "image_url", image_url: { url: DATA_URL } },
      ],
    },
  ]);
  assert.deepEqual((await readStored(vision, "a")).messages[2].images, [{
    data: IMAGE.data,
    mimeType: "image/png",
    name: "dot.png",
  }]);

  await using text = await harness(script, {
    tools: [screenshot],
    modelEntry: { architecture: { input_modalities: ["text"] } },
  });
  const b = text.store.create("b");
  assert.equal((await text.engine.runTurn("look", { session: b })).status, "ok");
  assert.deepEqual(chats(text)[1].body.messages.at(-1), {
    role: "tool",
    tool_call_id: "c1",
    content: "screen: image/png, attached as an image\n" +
      "[not sent, the model does not accept images: dot.png (image/png, 70 B)]",
  });
});

Deno.test("the images of a round's several tool results go in one user message after the last result, and count as about 1,500 tokens each", () => {
  const at = "2026-01-01T00:00:00.000Z";
  const messages = buildContext(["sys"], [
    { role: "user", content: "look twice", timestamp: at },
    {
      role: "assistant",
      content: null,
      timestamp: at,
      tool_calls: ["c1", "c2"].map((id) => ({
        id,
        type: "function" as const,
        function: { name: "screenshot", arguments: "{}" },
      })),
    },
    {
      role: "tool",
      content: "one",
      timestamp: at,
      tool_call_id: "c1",
      name: "shot",
      images: [IMAGE],
    },
    {
      role: "tool",
      content: "two",
      timestamp: at,
      tool_call_id: "c2",
      name: "crop",
      images: [IMAGE],
    },
    { role: "assistant", content: "Two dots.", timestamp: at },
  ], { images: true });
  assert.deepEqual(messages.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "tool",
    "tool",
    "user",
    "assistant",
  ]);
  assert.deepEqual(messages[5].content, [
    { type: "text", text: "[the images shot, crop returned above]" },
    { type: "image_url", image_url: { url: DATA_URL } },
    { type: "image_url", image_url: { url: DATA_URL } },
  ]);
  const size = requestContext({ model: "m", messages: messages.slice(5, 6) });
  assert.equal(
    size.estimated_tokens,
    Math.round(("[the images shot, crop returned above]".length + 12_000) / 4),
  );
});
