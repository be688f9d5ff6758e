import assert from "node:assert/strict";
import { SVC_PERMISSIONS, SVC_V8_FLAGS } from "../../src/launch/svc_command.ts";

Deno.test("the command that runs this svc is deno with svc's permission set, V8 flags and the main module, never -A", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const script = `${dir}/main.ts`;
  const module = new URL("../../src/launch/svc_command.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { svcCommand } from ${JSON.stringify(module)};
console.log(JSON.stringify(svcCommand(["serve", "--port", "1"])));`,
  );
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...SVC_PERMISSIONS, "--quiet", script],
      stderr: "inherit",
    }).output();
    assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), {
      command: Deno.execPath(),
      args: ["run", ...SVC_PERMISSIONS, ...SVC_V8_FLAGS, "--quiet", script, "serve", "--port", "1"],
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
