import assert from "node:assert/strict";
import { attachmentBlock, withAttachments } from "../../src/runtime/attachments.ts";

Deno.test("an attachment block names its file, its line range and escapes a quote in the path", () => {
  const block = attachmentBlock({
    kind: "file",
    path: 'a"b.ts',
    content: "1\tx\n",
    lines: { from: 3, to: 4 },
  });
  assert.equal(block, '<attachment file="a%22b.ts" lines="3-4">\n1\tx\n</attachment>');
});

Deno.test("attachments follow the typed text after a blank line, and an empty text adds no gap", () => {
  const folder = attachmentBlock({ kind: "folder", path: "src", content: "a.ts" });
  assert.equal(withAttachments("look", [folder]), `look\n\n${folder}`);
  assert.equal(withAttachments("", [folder]), folder);
  assert.equal(withAttachments("only text", []), "only text");
});
