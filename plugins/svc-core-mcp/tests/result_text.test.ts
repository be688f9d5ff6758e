import assert from "node:assert/strict";
import { resultOutput } from "../src/client/result_text.ts";

Deno.test("an imported tool's image content is kept as the result's images beside the text note", () => {
  const result = resultOutput("shot", {
    content: [
      { type: "text", text: "a screenshot" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "image", data: 7, mimeType: "image/png" },
    ],
  });
  assert.deepEqual(result, {
    content:
      "a screenshot\n[image image/png, 3 bytes; not shown]\n[image image/png, 0 bytes; not shown]",
    images: [{ data: "AAAA", mimeType: "image/png" }],
  });
});
