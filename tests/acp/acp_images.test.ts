// deno-lint-ignore-file no-explicit-any
/**
 * Images over ACP, with the SDK's client side connected in-process: `initialize` advertises
 * `promptCapabilities.image` as the configured model takes images, image blocks reach the backend
 * as image_url parts, and a text-only model, a mislabelled image or nine images are refused with
 * a clear error before any chat request.
 */
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { acpApp } from "../../src/acp/mod.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 5, 6, 7]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2]);
const VISION = { architecture: { input_modalities: ["text", "image"] } };

/**
 * Runs `op` against an in-process svc agent over `url`, with HOME at `box.home`; the session
 * updates are collected in `updates`.
 */
async function withAgent<T>(
  box: { worktree: string; home: string },
  { url, updates }: { url: string; updates?: acp.SessionNotification[] },
  op: (ctx: acp.ClientContext) => Promise<T>,
): Promise<T> {
  const before = Deno.env.get("HOME");
  Deno.env.set("HOME", box.home);
  try {
    const agent = acpApp({
      init: { baseUrl: url, model: "m" },
      log: () => {},
      cwd: box.worktree,
    });
    return await acp.client({ name: "test-editor" })
      .onNotification("session/update", ({ params }) => void updates?.push(params))
      .connectWith(agent, op);
  } finally {
    if (before === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", before);
  }
}

/** The error message a request failed with, or `ok`. */
async function failure(request: Promise<unknown>): Promise<string> {
  try {
    await request;
    return "ok";
  } catch (err) {
    return (err as Error).message;
  }
}

const chats = (fake: { requests: { path: string; body: any }[] }) =>
  fake.requests.filter((r) => r.path === "/v1/chat/completions");

Deno.test("with a model that takes images ACP advertises image prompts and sends image blocks as image_url parts, replayed on session/load", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "A chart." }], { entry: VISION });
  const updates: acp.SessionNotification[] = [];
  const out = await withAgent(box, { url: fake.url, updates }, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
    const { sessionId } = await ctx.request("session/new", { cwd: box.worktree, mcpServers: [] });
    const stop = await ctx.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "What is this?" },
        {
          type: "image",
          data: PNG.toBase64(),
          mimeType: "image/png",
          uri: "file:///tmp/chart.png",
        },
      ],
    });
    updates.splice(0);
    await ctx.request("session/load", { sessionId, cwd: box.worktree, mcpServers: [] });
    return { init, stop, sessionId };
  });
  await fake.close();
  assert.deepEqual(out.init.agentCapabilities?.promptCapabilities, {
    image: true,
    audio: false,
    embeddedContext: true,
  });
  assert.deepEqual(out.stop, { stopReason: "end_turn" });
  // session/load replays the prompt with its image.
  const replayed = updates.map((n) => n.update as any)
    .filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content);
  assert.deepEqual(replayed, [
    { type: "text", text: "What is this?" },
    { type: "image", data: PNG.toBase64(), mimeType: "image/png" },
  ]);
  assert.deepEqual(chats(fake)[0].body.messages.at(-1).content, [
    { type: "text", text: "What is this?" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toBase64()}` } },
  ]);
  const stored = JSON.parse(
    await Deno.readTextFile(`${box.worktree}/.svc/sessions/${out.sessionId}.json`),
  );
  assert.deepEqual(stored.messages.find((m: any) => m.role === "user").images, [
    { data: PNG.toBase64(), mimeType: "image/png", name: "chart.png" },
  ]);
});

Deno.test("with a text-only model ACP advertises no images and refuses an image prompt, a mislabelled image and nine images before any chat request", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "never" }]);
  const image = (bytes: Uint8Array, mimeType: string) => ({
    type: "image" as const,
    data: bytes.toBase64(),
    mimeType,
  });
  const out = await withAgent(box, { url: fake.url }, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
    const { sessionId } = await ctx.request("session/new", { cwd: box.worktree, mcpServers: [] });
    const ask = (prompt: acp.ContentBlock[]) =>
      failure(ctx.request("session/prompt", { sessionId, prompt }));
    return {
      init,
      refused: [
        await ask([{ type: "text", text: "Look" }, image(PNG, "image/png")]),
        await ask([{ type: "text", text: "Look" }, image(JPEG, "image/png")]),
        await ask([{ type: "text", text: "Look" }, ...Array(9).fill(image(PNG, "image/png"))]),
        await ask([{ type: "audio", data: "AAAA", mimeType: "audio/wav" }]),
      ],
    };
  });
  await fake.close();
  assert.equal(out.init.agentCapabilities?.promptCapabilities?.image, false);
  assert.deepEqual(out.refused.filter((m) => !m.startsWith("Invalid params: ")), []);
  assert.deepEqual(out.refused.map((m) => m.replace(/^Invalid params: /, "")), [
    `model generic/m does not accept images (its backend does not say it takes images), so ` +
    `image (image/png, 11 B) cannot be sent; use a model that does, or if this one does, set ` +
    `"images": true on its entry in ${box.home}/.config/svc/models.json (docs/providers.md#images)`,
    "image 1: the image is declared image/png but its bytes are image/jpeg",
    "9 images: a prompt may carry at most 8",
    "audio content is not supported (svc does not advertise it)",
  ]);
  assert.deepEqual(chats(fake), []);
});
