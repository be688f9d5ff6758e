import assert from "node:assert/strict";
import { SVC_PERMISSIONS } from "../../scripts/permissions.ts";
import { SVC_V8_FLAGS } from "../../scripts/v8_flags.ts";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

Deno.test("the entry points' permission set is the same in deno.json, the scripts and the docs", async () => {
  const tasks = JSON.parse(await read("deno.json")).tasks as Record<string, string>;
  assert.ok(tasks.svc.includes(` ${SVC_PERMISSIONS.join(" ")} `), tasks.svc);
  assert.ok(!/\s-A\s|--allow-all/.test(tasks.svc), tasks.svc);
  // install.ts runs its build step with -A; the command it installs gets the set.
  const install = await read("scripts/install.ts");
  assert.match(install, /"--global",\n {2}\.\.\.SVC_PERMISSIONS,/);
  assert.doesNotMatch(install, /"--allow-all"/);
  const compile = await read("scripts/compile.ts");
  assert.match(compile, /"compile",\n {2}\.\.\.SVC_PERMISSIONS,/);
  assert.doesNotMatch(compile, /"-A"|"--allow-all"/);
  const security = await read("docs/security.md");
  const documented = [...security.matchAll(/^\| `(--[a-z-]+)` /gm)].map((m) => m[1]);
  assert.deepEqual(documented, [...SVC_PERMISSIONS]);
});

Deno.test("the entry points carry svc's V8 flags: deno task svc, the installed command and the binary", async () => {
  const tasks = JSON.parse(await read("deno.json")).tasks as Record<string, string>;
  assert.ok(tasks.svc.includes(` ${SVC_V8_FLAGS.join(" ")} `), tasks.svc);
  assert.match(await read("scripts/install.ts"), /\.\.\.SVC_PERMISSIONS,\n {2}\.\.\.SVC_V8_FLAGS,/);
  assert.match(await read("scripts/compile.ts"), /\.\.\.SVC_PERMISSIONS,\n {2}\.\.\.SVC_V8_FLAGS,/);
});
