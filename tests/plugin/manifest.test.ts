import assert from "node:assert/strict";
import { join } from "node:path";
import { discoverPlugins } from "../../src/plugin/discover.ts";
import { incompatibility, MANIFEST_MAX_BYTES, readManifest } from "../../src/plugin/manifest.ts";
import { rememberManifest } from "../../src/plugin/manifest_memo.ts";
import { makeLayout, manifest, writePlugin } from "./_helpers.ts";

Deno.test("readManifest accepts a full manifest and fills defaults of a minimal one", async () => {
  await using t = await makeLayout();
  const full = {
    name: "svc-core-fs",
    version: "0.27.0",
    description: "Files",
    svc_version: ">=0.27.0 <1.0.0",
    runtime: { deno: ">=2.0.0" },
    entry: "src/main.ts",
    requires: ["npm:foo@1"],
    permissions: ["read", "write"],
    dynamic_registrations: true,
  };
  const dir = await writePlugin(t.base, "full", {
    "manifest.json": full,
    "src/main.ts": "",
  });
  assert.deepEqual(await readManifest(dir), {
    ok: true,
    manifest: full,
    entryPath: join(await Deno.realPath(dir), "src", "main.ts"),
  });
  const minimal = { name: "mini", version: "1.0.0", svc_version: "*" };
  const mini = await writePlugin(t.base, "mini", {
    "manifest.json": minimal,
    "mod.ts": "",
  });
  assert.deepEqual(await readManifest(mini), {
    ok: true,
    manifest: {
      ...minimal,
      description: "",
      runtime: {},
      entry: "mod.ts",
      requires: [],
      permissions: [],
      dynamic_registrations: false,
    },
    entryPath: join(await Deno.realPath(mini), "mod.ts"),
  });
});

Deno.test("readManifest reports missing, invalid JSON and schema errors", async () => {
  await using t = await makeLayout();
  const cases: Array<[Record<string, string | object>, string]> = [
    [{ "mod.ts": "" }, "Missing manifest.json"],
    [{ "manifest.json": "{ nope" }, "Invalid manifest.json: "],
    [{ "manifest.json": "[]" }, "Invalid manifest.json: "],
    [
      { "manifest.json": manifest("x", { version: "one" }) },
      `Invalid manifest.json: "version" not a valid semantic version`,
    ],
    [
      { "manifest.json": manifest("x", { svc_version: "soon" }) },
      `Invalid manifest.json: "svc_version" not a valid svc version range`,
    ],
    [
      { "manifest.json": manifest("../evil") },
      `Invalid manifest.json: "name" must be 1-64 lowercase`,
    ],
    [
      { "manifest.json": manifest("x", { requires: ["--allow-all"] }) },
      `Invalid manifest.json: "requires.0" must be an npm:, jsr: or https:// specifier`,
    ],
    [
      { "manifest.json": manifest("x", { permissions: ["sys"] }) },
      `Invalid manifest.json: "permissions.0" `,
    ],
    [
      { "manifest.json": manifest("x"), "main.ts": "" },
      "Entry mod.ts not found",
    ],
  ];
  for (const [i, [files, expected]] of cases.entries()) {
    const result = await readManifest(
      await writePlugin(t.base, `case${i}`, files),
    );
    assert.equal(result.ok, false, expected);
    assert.ok(
      !result.ok && result.error.startsWith(expected),
      `${expected} <> ${!result.ok && result.error}`,
    );
  }
});

Deno.test("readManifest refuses an entry outside the plugin folder", async () => {
  await using t = await makeLayout();
  await Deno.writeTextFile(join(t.base, "x.ts"), "export {};\n");
  const outside = (entry: string) => `Entry ${entry} is outside the plugin folder`;
  const absolute = join(t.base, "x.ts");
  const cases: Array<[string, string]> = [
    ["../x.ts", outside("../x.ts")],
    ["../../x.ts", outside("../../x.ts")],
    [absolute, outside(absolute)],
    [".", outside(".")],
    [
      "file:///etc/passwd",
      `Invalid manifest.json: "entry" must be a relative file path inside the plugin`,
    ],
  ];
  for (const [i, [entry, error]] of cases.entries()) {
    const dir = await writePlugin(t.base, `p${i}`, {
      "manifest.json": manifest("p", { entry }),
    });
    assert.deepEqual(await readManifest(dir), { ok: false, error });
  }
  const linked = await writePlugin(t.base, "linked", {
    "manifest.json": manifest("p"),
  });
  await Deno.symlink(join(t.base, "x.ts"), join(linked, "mod.ts"));
  assert.deepEqual(await readManifest(linked), {
    ok: false,
    error: "Entry mod.ts is outside the plugin folder",
  });
});

Deno.test("readManifest refuses a huge manifest without reading it", async () => {
  await using t = await makeLayout();
  const huge = JSON.stringify({
    ...manifest("big"),
    description: "x".repeat(MANIFEST_MAX_BYTES),
  });
  const dir = await writePlugin(t.base, "big", {
    "manifest.json": huge,
    "mod.ts": "",
  });
  assert.deepEqual(await readManifest(dir), {
    ok: false,
    error: `manifest.json is larger than the 64 KiB limit (${huge.length} bytes)`,
  });
  const fifo = await writePlugin(t.base, "fifo", { "mod.ts": "" });
  await new Deno.Command("mkfifo", { args: [join(fifo, "manifest.json")] })
    .output();
  assert.deepEqual(await readManifest(fifo), {
    ok: false,
    error: "manifest.json is not a regular file",
  });
});

Deno.test("incompatibility names the range that excludes this svc or deno", async () => {
  const base = {
    ...manifest("p"),
    description: "",
    requires: [],
    permissions: [],
  };
  const versions = { svc: "0.27.0", deno: "2.9.6" };
  const check = (svc_version: string, deno?: string) =>
    incompatibility(
      { ...base, svc_version, runtime: deno ? { deno } : {} } as never,
      versions,
    );
  assert.equal(await check(">=0.27.0 <1.0.0", ">=2.0.0"), null);
  assert.equal(await check(">=1.0.0"), "Requires svc >=1.0.0, this is 0.27.0");
  assert.equal(await check("*", "<2.0.0"), "Requires deno <2.0.0, this is 2.9.6");
});

Deno.test("every bundled plugin manifest is valid and compatible with this svc", async () => {
  const bundled = new URL("../../plugins/", import.meta.url).pathname;
  for (const entry of Deno.readDirSync(bundled)) {
    if (!entry.isDirectory) continue;
    const read = await readManifest(join(bundled, entry.name));
    assert.equal(read.ok, true, `${entry.name}: ${read.ok ? "" : read.error}`);
    if (read.ok) assert.equal(await incompatibility(read.manifest), null, entry.name);
  }
});

Deno.test("a manifest remembered as compatible skips the version checks until its text changes", async () => {
  await using t = await makeLayout();
  const memoDir = join(t.base, "memo");
  const dir = await writePlugin(t.base, "p", { "manifest.json": manifest("p"), "mod.ts": "" });
  const first = await readManifest(dir, { memoDir });
  assert.ok(first.ok && first.marker && !first.compatible);
  await rememberManifest(first.marker);
  const again = await readManifest(dir, { memoDir });
  assert.ok(again.ok && again.compatible && !again.marker);
  await writePlugin(t.base, "p", { "manifest.json": manifest("p", { version: "1.0.1" }) });
  const changed = await readManifest(dir, { memoDir });
  assert.ok(changed.ok && changed.marker && !changed.compatible);
  // Discovery remembers only what it found compatible.
  await writePlugin(t.globalDir, "future", {
    "manifest.json": manifest("future", { svc_version: ">=99.0.0" }),
    "mod.ts": "",
  });
  await writePlugin(t.globalDir, "now", { "manifest.json": manifest("now"), "mod.ts": "" });
  const found = await discoverPlugins(t.roots);
  assert.deepEqual(found.map((c) => [c.name, c.state]), [["future", "skipped"], ["now", "ok"]]);
  const markers = await Array.fromAsync(Deno.readDir(join(t.home, ".config/svc/plugin_cache")));
  assert.equal(markers.length, 1);
  const remembered = await discoverPlugins(t.roots);
  assert.deepEqual(remembered.map((c) => [c.name, c.state]), [["future", "skipped"], [
    "now",
    "ok",
  ]]);
});
