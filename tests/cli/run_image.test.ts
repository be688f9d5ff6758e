// deno-lint-ignore-file no-explicit-any
/**
 * `svc run --image <file>`: the images reach the backend as image_url parts of the user message
 * (one spawned run), a text-only model refuses before any request with one line, and bad files
 * are refused before anything runs (checked in-process: a FIFO, a folder, /dev/zero, too big, a
 * JPEG named .png is fine but not a text file named .png, nine images).
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { promptImages } from "../../src/cli/run_images.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 9, 9, 9]);
const VISION = { architecture: { input_modalities: ["text", "image"] } };

/** The session files of a worktree (the sessions folder itself may exist: svc checked it). */
async function sessionFiles(worktree: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(`${worktree}/.svc/sessions`)) names.push(entry.name);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return names;
}

const chats = (fake: { requests: { path: string; body: any }[] }) =>
  fake.requests.filter((r) => r.path === "/v1/chat/completions");

Deno.test("svc run --image sends each image as an image_url part with the prompt read from standard input and stores them in the session", async () => {
  await using box = await sandbox();
  await Deno.writeFile(`${box.worktree}/shot.png`, PNG);
  await Deno.writeFile(`${box.worktree}/photo.jpg`, JPEG);
  const fake = await startFakeProvider([{ text: "Two pictures." }], { entry: VISION });
  const out = await svc([
    "run",
    "--base-url",
    fake.url,
    "--model",
    "m",
    "--image",
    "shot.png",
    "--image",
    `${box.worktree}/photo.jpg`,
    "--output",
    "json",
    "--prompt",
    "-",
  ], { cwd: box.worktree, env: box.env, stdin: "What are these?" });
  await fake.close();
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout);
  assert.deepEqual([result.status, result.content], ["ok", "Two pictures."]);
  const [chat] = chats(fake);
  assert.deepEqual(chat.body.messages.at(-1), {
    role: "user",
    content: [
      { type: "text", text: "What are these?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toBase64()}` } },
      { type: "image_url", image_url: { url: `data:image/jpeg;base64,${JPEG.toBase64()}` } },
    ],
  });
  const stored = JSON.parse(
    await Deno.readTextFile(`${box.worktree}/.svc/sessions/${result.session}.json`),
  );
  const prompt = stored.messages.find((m: any) => m.role === "user");
  assert.deepEqual(prompt.images, [
    { data: PNG.toBase64(), mimeType: "image/png", name: "shot.png" },
    { data: JPEG.toBase64(), mimeType: "image/jpeg", name: "photo.jpg" },
  ]);
});

Deno.test("svc run --image with a text-only model exits 1 with one line saying what to do and a stream-json result, sends nothing and writes no session", async () => {
  await using box = await sandbox();
  await Deno.writeFile(`${box.worktree}/shot.png`, PNG);
  const fake = await startFakeProvider([{ text: "never" }]);
  const out = await svc(
    [
      "run",
      "--base-url",
      fake.url,
      "--model",
      "m",
      "--image",
      "shot.png",
      "--output",
      "stream-json",
      "Describe it",
    ],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.equal(out.code, 1, out.stderr);
  const lines = out.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(
    lines.map((l) => [l.type, l.subtype, l.svc?.status, l.svc?.errors.map((e: any) => e.code)]),
    [["result", "error_during_execution", "error", ["images_not_accepted"]]],
  );
  assert.equal(
    out.stderr,
    `svc run: model generic/m does not accept images (its backend does not say it takes ` +
      `images), so shot.png (image/png, 12 B) cannot be sent; use a model that does, or if this ` +
      `one does, set "images": true on its entry in ${box.home}/.config/svc/models.json ` +
      `(docs/providers.md#images)\n`,
  );
  assert.deepEqual(chats(fake), []);
  assert.deepEqual(await sessionFiles(box.worktree), []);
});

Deno.test("svc run --image refuses a file that is no image as a usage error before any request", async () => {
  await using box = await sandbox({ "page.png": "<html>not an image</html>" });
  const fake = await startFakeProvider([{ text: "never" }], { entry: VISION });
  const out = await svc(
    ["run", "--base-url", fake.url, "--model", "m", "--image", "page.png", "Describe it"],
    { cwd: box.worktree, env: box.env },
  );
  await fake.close();
  assert.deepEqual(
    [out.code, out.stdout, out.stderr],
    [2, "", "svc run: --image: page.png is not a PNG, JPEG, GIF or WebP image\n"],
  );
  assert.deepEqual(fake.requests, []);
  await assert.rejects(Deno.stat(`${box.worktree}/.svc/sessions`), Deno.errors.NotFound);
});

Deno.test("--image refuses a FIFO, a folder, /dev/zero, a missing file, a 6 MiB image and nine images without reading past the limit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-image-" });
  try {
    const fifo = `${dir}/pipe.png`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.equal(made.success, true);
    const big = new Uint8Array(6 << 20);
    big.set(PNG);
    await Deno.writeFile(`${dir}/big.png`, big);
    await Deno.writeFile(`${dir}/ok.png`, PNG);
    const problem = async (paths: string[]) => {
      const read = await promptImages(paths);
      return "problem" in read ? read.problem : `read ${read.images.length}`;
    };
    assert.deepEqual(
      [
        await problem([fifo]),
        await problem([dir]),
        await problem(["/dev/zero"]),
        await problem([`${dir}/gone.png`]),
        await problem([`${dir}/big.png`]),
        await problem(Array(9).fill(`${dir}/ok.png`)),
        await problem(Array(8).fill(`${dir}/ok.png`)),
        await problem([]),
      ],
      [
        `--image: ${fifo} is not a file`,
        `--image: ${dir} is not a file`,
        "--image: /dev/zero is not a file",
        `--image: ${dir}/gone.png: no such file`,
        `--image: ${dir}/big.png is 6.0 MiB; an image may be at most 5.0 MiB`,
        "--image given 9 times; a prompt may carry at most 8 images",
        "read 8",
        "read 0",
      ],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
