/**
 * The REPL's images in-process: which pastes are file paths (what a terminal pastes for a file
 * dragged onto it), which of those are images, the input's image placeholders, and how a stored
 * message with images is shown. The pseudo-terminal run is repl_images.test.ts.
 */
import assert from "node:assert/strict";
import { pastedPaths } from "../../src/repl/paste_path.ts";
import { pastedImages } from "../../src/repl/pasted_image.ts";
import { Editor, type EditorAction } from "../../src/repl/editor.ts";
import { KeyDecoder } from "../../src/repl/keys.ts";
import { preview } from "../../src/repl/commands_session.ts";
import { makeStyle } from "../../src/repl/style.ts";

/** A 1x1 PNG (70 bytes). */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

function type(editor: Editor, bytes: string): EditorAction[] {
  const decoder = new KeyDecoder();
  const keys = [...decoder.feed(bytes), ...decoder.flush()];
  return keys.map((k) => editor.handle(k)).filter((a) => a.type !== "none");
}

Deno.test("a paste of dragged files is read as paths: quoted, backslash-escaped, file:// URLs, several", () => {
  assert.deepEqual(pastedPaths("'/tmp/my shot.png' "), ["/tmp/my shot.png"]);
  assert.deepEqual(pastedPaths("/tmp/my\\ shot\\ (2).png"), ["/tmp/my shot (2).png"]);
  assert.deepEqual(pastedPaths('"/tmp/say \\"hi\\" $x.png"'), ['/tmp/say "hi" $x.png']);
  assert.deepEqual(pastedPaths("'/tmp/it'\\''s.png'"), ["/tmp/it's.png"]);
  assert.deepEqual(pastedPaths("file:///tmp/my%20shot.png\r\n"), ["/tmp/my shot.png"]);
  assert.deepEqual(pastedPaths("file://localhost/a.png"), ["/a.png"]);
  assert.deepEqual(pastedPaths("'/a b.png' /c.png\nfile:///d.png"), [
    "/a b.png",
    "/c.png",
    "/d.png",
  ]);
  assert.deepEqual(pastedPaths("~/Pictures/x.png ./y.png ../z.png"), [
    "~/Pictures/x.png",
    "./y.png",
    "../z.png",
  ]);
});

Deno.test("a paste that is not only paths is not taken for paths", () => {
  for (
    const text of [
      "",
      "   ",
      "shot.png",
      "hello world",
      "/tmp/a.png and some words",
      "'/tmp/open quote.png",
      '"/tmp/open',
      "file://example.com/x.png",
      "file:///x.png?query",
      "https://example.com/x.png",
      "/tmp/a\0.png",
      `/${"x".repeat(9000)}`,
    ]
  ) {
    assert.equal(pastedPaths(text), null, JSON.stringify(text.slice(0, 40)));
  }
});

Deno.test("pasted paths become images only when every one is an image file, read outside the worktree too", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-paste-" });
  try {
    const png = Uint8Array.fromBase64(PNG);
    await Deno.writeFile(`${dir}/my shot.png`, png);
    await Deno.mkdir(`${dir}/home/pics`, { recursive: true });
    await Deno.writeFile(`${dir}/home/pics/b.gif`, new TextEncoder().encode("GIF89a-rest"));
    await Deno.writeTextFile(`${dir}/notes.txt`, "plain text\n");
    await Deno.writeTextFile(`${dir}/fake.png`, "not an image\n");
    const options = { cwd: dir, home: `${dir}/home` };
    assert.deepEqual(await pastedImages(`'${dir}/my shot.png' ~/pics/b.gif`, options), {
      images: [
        { data: PNG, mimeType: "image/png", name: "my shot.png" },
        { data: "R0lGODlhLXJlc3Q=", mimeType: "image/gif", name: "b.gif" },
      ],
    });
    assert.deepEqual(await pastedImages("./my\\ shot.png", options), {
      images: [{ data: PNG, mimeType: "image/png", name: "my shot.png" }],
    });
    // Not an image, a folder, a missing file, one text file among images: the text is pasted.
    assert.deepEqual(await pastedImages(`${dir}/notes.txt`, options), { images: [] });
    assert.deepEqual(await pastedImages(`${dir}/home`, options), { images: [] });
    assert.deepEqual(await pastedImages(`${dir}/gone.png`, options), { images: [] });
    assert.deepEqual(await pastedImages(`'${dir}/my shot.png' ${dir}/notes.txt`, options), {
      images: [],
    });
    // A file named as an image that is none says so.
    assert.deepEqual(await pastedImages(`${dir}/fake.png`, options), {
      images: [],
      warning: `not attached: ${dir}/fake.png is not a PNG, JPEG, GIF or WebP image`,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pasted paths to endless files and devices are pasted as text at once, never read to their end", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-paste-" });
  try {
    // Size 0 by stat, terabytes to read: the image reader stops after its cap.
    await Deno.symlink("/proc/self/pagemap", `${dir}/shot.png`);
    const options = { cwd: dir };
    assert.deepEqual(await pastedImages("/proc/self/pagemap /dev/zero", options), { images: [] });
    assert.deepEqual(await pastedImages("/dev/zero", options), { images: [] });
    const named = await pastedImages("./shot.png", options);
    assert.deepEqual(named.images, []);
    assert.match(named.warning ?? "", /^not attached: /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an image placeholder goes with the text, its image with the submit, and Backspace drops both", () => {
  const e = new Editor();
  const shot = { data: PNG, mimeType: "image/png", name: "shot.png" };
  const odd = { data: PNG, mimeType: "image/png", name: "a]b\x1b.png" };
  type(e, "see ");
  e.attachImages([shot, odd]);
  assert.equal(e.text, "see [image 1: shot.png] [image 2: a_b_.png]");
  assert.deepEqual(type(e, " now\r"), [{
    type: "submit",
    text: "see [image 1: shot.png] [image 2: a_b_.png] now",
    images: [shot, odd],
  }]);
  // Up brings the prompt back with its images.
  assert.deepEqual(type(e, "\x1b[A\r"), [{
    type: "submit",
    text: "see [image 1: shot.png] [image 2: a_b_.png] now",
    images: [shot, odd],
  }]);
  e.attachImages([shot]);
  type(e, "\x7f");
  assert.equal(e.text, "");
  // A placeholder broken by other edits is text, without its image.
  e.attachImages([shot]);
  type(e, "\x01\x1b[3~");
  assert.deepEqual(type(e, "\r"), [{ type: "submit", text: "image 4: shot.png]" }]);
});

Deno.test("a stored message's images are shown by name, type and size, never as data", () => {
  const messages = [
    {
      role: "user" as const,
      content: "what is this?",
      timestamp: "2026-11-26T00:00:00Z",
      images: [{ data: PNG, mimeType: "image/png", name: "shot.png" }],
    },
    { role: "assistant" as const, content: "a dot", timestamp: "2026-11-26T00:00:01Z" },
  ];
  assert.equal(
    preview(messages, makeStyle(false, true)),
    "user: what is this? [image: shot.png (image/png, 70 B)]\nassistant: a dot",
  );
});
