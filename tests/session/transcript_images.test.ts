/**
 * `svc sessions show` and `export` name a message's images by label, never with their data: a
 * prompt's images and the images a tool returned.
 */
import assert from "node:assert/strict";
import { newSessionData } from "../../src/session/log.ts";
import { transcriptMarkdown, transcriptText } from "../../src/session/transcript.ts";
import type { SessionData } from "../../src/session/types.ts";

const SHOT = new Uint8Array(2048).fill(7).toBase64();
const PHOTO = new Uint8Array(100).fill(9).toBase64();

function session(): SessionData {
  const at = "2026-11-26T10:00:00.000Z";
  return {
    ...newSessionData("pics"),
    created_at: at,
    updated_at: at,
    messages: [
      {
        role: "user",
        content: "What is in these?",
        timestamp: at,
        images: [
          { data: SHOT, mimeType: "image/png", name: "shot.png" },
          { data: PHOTO, mimeType: "image/jpeg" },
        ],
      },
      {
        role: "assistant",
        content: "",
        timestamp: at,
        model: "m",
        tool_calls: [{
          id: "c1",
          type: "function",
          function: { name: "file_read", arguments: '{"path":"chart.png"}' },
        }],
      },
      {
        role: "tool",
        tool_call_id: "c1",
        name: "file_read",
        content: "chart.png: PNG image",
        timestamp: at,
        images: [{ data: PHOTO, mimeType: "image/png", name: "chart.png" }],
      },
      { role: "assistant", content: "A chart.", timestamp: at, model: "m" },
    ],
  };
}

Deno.test("a session's images are shown and exported as [image: label] lines, never as base64", () => {
  const data = session();
  const text = transcriptText(data);
  assert.equal(
    text,
    [
      "--- #1 user · 2026-11-26 10:00:00",
      "What is in these?",
      "[image: shot.png (image/png, 2.0 KiB)]",
      "[image: image (image/jpeg, 100 B)]",
      "",
      "--- #2 assistant (m) · 2026-11-26 10:00:00",
      '  > file_read {"path":"chart.png"} => chart.png: PNG image',
      "    [image: chart.png (image/png, 100 B)]",
      "",
      "--- #4 assistant (m) · 2026-11-26 10:00:00",
      "A chart.",
    ].join("\n"),
  );
  const markdown = transcriptMarkdown(data);
  assert.equal(
    markdown.slice(markdown.indexOf("## User")),
    [
      "## User · 2026-11-26 10:00:00",
      "",
      "What is in these?",
      "",
      "- `[image: shot.png (image/png, 2.0 KiB)]`",
      "- `[image: image (image/jpeg, 100 B)]`",
      "",
      "## Assistant (m) · 2026-11-26 10:00:00",
      "",
      '- `file_read {"path":"chart.png"}` → `chart.png: PNG image`',
      "  - `[image: chart.png (image/png, 100 B)]`",
      "",
      "## Assistant (m) · 2026-11-26 10:00:00",
      "",
      "A chart.",
      "",
    ].join("\n"),
  );
  for (const rendered of [text, markdown]) {
    assert.equal(
      rendered.includes(SHOT.slice(0, 40)) || rendered.includes(PHOTO.slice(0, 40)),
      false,
    );
  }
});
