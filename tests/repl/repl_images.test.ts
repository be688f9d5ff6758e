// deno-lint-ignore-file no-explicit-any
/**
 * Images in the REPL, in one real pseudo-terminal (util-linux `script`) against the scripted
 * provider: an `@image.png` mention (Tab-completed) refused for a text-only model and sent as an
 * image part to one that takes images, a dragged-in quoted path with a space attached as a
 * placeholder, a pasted path to a text file left as text, and the stored images shown by name.
 * The paste parsing itself is images.test.ts (in-process).
 */
import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { needs } from "../_support/tools.ts";
import { PtyRepl } from "./_pty.ts";

/** A 1x1 PNG (70 bytes). */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

Deno.test(
  "svc in a terminal: @shot.png is refused for a text-only model with nothing sent and the prompt kept, then sent as an image part; a pasted quoted image path attaches, a pasted text path stays text (needs script)",
  needs("script"),
  async () => {
    await using box = await sandbox({ "hello.txt": "hello\n" });
    await Deno.writeFile(`${box.worktree}/shot.png`, Uint8Array.fromBase64(PNG));
    await Deno.writeFile(`${box.home}/my shot.png`, Uint8Array.fromBase64(PNG));
    const entry = (model: string, images: boolean) => ({
      provider: "generic",
      model,
      added_at: "",
      last_used: "",
      images,
    });
    await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true });
    await Deno.writeTextFile(
      `${box.home}/.config/svc/models.json`,
      JSON.stringify([entry("text-model", false), entry("fake-model", true)]),
    );
    const fake = await startFakeProvider((body: any) => {
      const parts = body.messages.at(-1).content;
      return { text: `saw ${parts.filter((p: any) => p.type === "image_url").length} image(s)` };
    }, { models: ["text-model", "fake-model"] });
    await Deno.mkdir(`${box.worktree}/.svc`);
    await Deno.writeTextFile(
      `${box.worktree}/.svc/config.json`,
      JSON.stringify({ base_url: fake.url, model: "text-model" }),
    );
    const chats = () => fake.requests.filter((r) => r.path === "/v1/chat/completions");
    const repl = new PtyRepl({ cwd: box.worktree, env: box.env });
    try {
      await repl.waitFor(/generic\/text-model · ctx/);
      await repl.send("what is @sh\t");
      await repl.waitFor(/› what is @shot\.png \n/);
      await repl.send("\r");
      await repl.waitFor(
        /attached @shot\.png \(image\/png, 70 B\)\nnot sent: model generic\/text-model does not accept images \(its entry in /,
      );
      await repl.waitFor(/your message is back in the input\n› what is @shot\.png \n/);
      assert.equal(chats().length, 0);
      // The mention's read is audited; no message is stored.
      const dir = `${box.worktree}/.svc/sessions`;
      const files = (await Array.fromAsync(Deno.readDir(dir), (e) => e.name))
        .filter((name) => name.endsWith(".json"));
      assert.equal(files.length, 1);
      const stored = JSON.parse(await Deno.readTextFile(`${dir}/${files[0]}`));
      assert.deepEqual([stored.messages, stored.permissions.map((p: any) => p.tool)], [[], [
        "file_read",
      ]]);

      await repl.send("\x15/model fake-model\r");
      await repl.waitFor(/now using generic\/fake-model/);
      await repl.send("\x1b[A\x1b[A\r"); // Up twice: the refused prompt
      await repl.waitFor(/saw 1 image\(s\)/);
      assert.deepEqual(chats().at(-1)!.body.messages.at(-1).content, [
        { type: "text", text: "what is @shot.png " },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ]);

      // A file dragged onto the terminal: its quoted path, pasted.
      await repl.send(`\x1b[200~'${box.home}/my shot.png' \x1b[201~`);
      await repl.waitFor(/› \[image 1: my shot\.png\]\n/);
      await repl.send(" describe\r");
      await repl.waitFor(/saw 1 image\(s\)[\s\S]*saw 1 image\(s\)/);
      assert.deepEqual(chats().at(-1)!.body.messages.at(-1).content, [
        { type: "text", text: "[image 1: my shot.png] describe" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ]);

      await repl.send(`\x1b[200~${box.worktree}/hello.txt\x1b[201~`);
      await repl.waitFor(new RegExp(`› ${box.worktree}/hello\\.txt\\n`));
      await repl.send("\x15/session preview\r");
      await repl.waitFor(
        /user: what is @shot\.png \[image: shot\.png \(image\/png, 70 B\)\]\nassistant: saw 1 image\(s\)\nuser: \[image 1: my shot\.png\] describe \[image: my shot\.png \(image\/png, 70 B\)\]/,
      );
      assert.equal(repl.term.raw.includes(PNG.slice(0, 24)), false);
      await repl.send("\x04");
      assert.equal(await repl.exit(), 0);
    } finally {
      await repl.dispose();
      await fake.close();
    }
  },
);
