// deno-lint-ignore-file no-explicit-any
/**
 * POST /chat `images`: both documented forms reach the backend as image_url parts (JSON and
 * streamed turns), request bodies validate against the served OpenAPI document, a text-only model
 * is refused with the engine's words before anything runs, and bad images are 400s naming their
 * index: a data:text/html URL, a JPEG declared PNG, 6 MiB, nine images.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { app, assertJsonHeaders, sessionFiles } from "./_app.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xde, 0xad, 0xbe]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 7, 7, 7]);
const PNG_URL = `data:image/png;base64,${PNG.toBase64()}`;
const JPEG_URL = `data:image/jpeg;base64,${JPEG.toBase64()}`;
const VISION = { architecture: { input_modalities: ["text", "image"] } };

const chats = (a: { fake: { requests: { path: string; body: any }[] } }) =>
  a.fake.requests.filter((r) => r.path === "/v1/chat/completions");

/** The served document's ChatRequest schema, compiled. */
async function chatRequestSchema(a: Awaited<ReturnType<typeof app>>) {
  const doc = await (await a.call("GET", "/openapi.json")).json();
  const schema = doc.paths["/chat"].post.requestBody.content["application/json"].schema;
  return new Ajv2020({ strict: false }).compile({ ...schema, components: doc.components });
}

Deno.test("POST /chat sends images given as a data: URL and as {data, mime_type, name} as image_url parts, in a JSON and a streamed turn", async () => {
  await using a = await app([{ text: "A picture." }, { text: "Streamed." }], {
    modelEntry: VISION,
  });
  const body = {
    prompt: "Look",
    session_id: "pics",
    images: [PNG_URL, { data: JPEG.toBase64(), mime_type: "image/jpeg", name: "photo.jpg" }],
  };
  const valid = await chatRequestSchema(a);
  assert.equal(valid(body), true, JSON.stringify(valid.errors));
  assert.equal(valid({ prompt: "x", images: Array(9).fill(PNG_URL) }), false);
  const res = await a.call("POST", "/chat", { json: body });
  assertJsonHeaders(res);
  const result = await res.json();
  assert.deepEqual([res.status, result.status, result.content], [200, "ok", "A picture."]);
  const parts = [
    { type: "text", text: "Look" },
    { type: "image_url", image_url: { url: PNG_URL } },
    { type: "image_url", image_url: { url: JPEG_URL } },
  ];
  assert.deepEqual(chats(a)[0].body.messages.at(-1), { role: "user", content: parts });
  const stored = await a.store.read("pics");
  assert.deepEqual(stored.messages.find((m) => m.role === "user")?.images, [
    { data: PNG.toBase64(), mimeType: "image/png" },
    { data: JPEG.toBase64(), mimeType: "image/jpeg", name: "photo.jpg" },
  ]);
  const streamed = await a.call("POST", "/chat", {
    json: { prompt: "Again", stream: true, images: [JPEG_URL] },
  });
  const text = await streamed.text();
  assert.equal(streamed.status, 200);
  assert.deepEqual([...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]), [
    "system",
    "assistant",
    "result",
  ]);
  assert.deepEqual(chats(a)[1].body.messages.at(-1).content, [
    { type: "text", text: "Again" },
    { type: "image_url", image_url: { url: JPEG_URL } },
  ]);
});

Deno.test("POST /chat with images for a text-only model is 400 with the engine's words, before any chat request or session", async () => {
  await using a = await app([{ text: "never" }]);
  for (const stream of [false, true]) {
    const res = await a.call("POST", "/chat", {
      json: { prompt: "Look", stream, images: [PNG_URL] },
    });
    assertJsonHeaders(res);
    assert.deepEqual([res.status, await res.json()], [400, {
      error: `model generic/fake-model does not accept images (its backend does not say it ` +
        `takes images), so image (image/png, 11 B) cannot be sent; use a model that does, or if ` +
        `this one does, set "images": true on its entry in ${Deno.env.get("HOME")}/.config/svc/` +
        `models.json (docs/providers.md#images)`,
    }]);
  }
  assert.deepEqual(chats(a), []);
  assert.deepEqual(await sessionFiles(a.worktree), []);
});

Deno.test("POST /chat refuses bad images with 400 naming the index: a text/html data: URL, a JPEG declared PNG, 6 MiB, nine, bare base64 strings, unknown fields", async () => {
  await using a = await app([{ text: "never" }], { modelEntry: VISION });
  const big = new Uint8Array(6 << 20);
  big.set(PNG);
  const html = new TextEncoder().encode("<script>alert(1)</script>");
  const cases: Array<[unknown, string]> = [
    [
      [`data:text/html;base64,${html.toBase64()}`],
      "images[0]: the image is not a PNG, JPEG, GIF or WebP image",
    ],
    [
      [`data:text/html;base64,${PNG.toBase64()}`],
      "images[0]: the image is declared text/html but its bytes are image/png",
    ],
    [
      [PNG_URL, `data:image/png;base64,${JPEG.toBase64()}`],
      "images[1]: the image is declared image/png but its bytes are image/jpeg",
    ],
    [
      [{ data: JPEG.toBase64(), mime_type: "image/png" }],
      "images[0]: the image is declared image/png but its bytes are image/jpeg",
    ],
    [
      [{ data: big.toBase64() }],
      "images[0]: the image is 6.0 MiB; an image may be at most 5.0 MiB",
    ],
    [Array(9).fill(PNG_URL), "images has 9 entries; a prompt may carry at most 8"],
    [
      [PNG.toBase64()],
      'images[0]: a string must be a data: URL (data:image/png;base64,...); send bare base64 as {"data"}',
    ],
    [["data:image/png,plain"], "images[0]: a data: URL must be base64 (data:image/png;base64,...)"],
    [[{ data: "!!!" }], "images[0]: the image is not valid base64"],
    [
      [{ data: PNG.toBase64(), url: "x" }],
      "images[0]: unknown field url; expected data, mime_type and name",
    ],
    [
      [{ data: PNG.toBase64(), name: "../etc/passwd" }],
      "images[0]: name must be a file name of 1-128 characters (no slash, no control characters)",
    ],
    [[7], 'images[0]: must be a data: URL string or an object {"data", "mime_type"}'],
    ["x", "images must be an array"],
  ];
  const answers = [];
  for (const [images] of cases) {
    const res = await a.call("POST", "/chat", { json: { prompt: "Look", images } });
    answers.push([res.status, (await res.json()).error]);
  }
  assert.deepEqual(answers, cases.map(([, error]) => [400, error]));
  assert.deepEqual(a.fake.requests, []);
  assert.deepEqual(await sessionFiles(a.worktree), []);
});
