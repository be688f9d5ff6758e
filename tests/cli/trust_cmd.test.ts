import assert from "node:assert/strict";
import { buildProgram } from "../../src/cli/program.ts";

/** Runs `svc trust ...` in process under a temp HOME; returns what it printed and its exit code. */
async function trust(args: string[], home: string) {
  const printed: string[] = [];
  const log = console.log;
  const oldHome = Deno.env.get("HOME");
  console.log = (...parts: unknown[]) => printed.push(parts.join(" "));
  Deno.env.set("HOME", home);
  let code = 0;
  try {
    await buildProgram((c) => code = c, "trust").parseAsync(["trust", ...args], { from: "user" });
  } finally {
    console.log = log;
    if (oldHome) Deno.env.set("HOME", oldHome);
  }
  return { printed, code };
}

Deno.test("svc trust list and svc trust remove <folder> are subcommands; svc trust <folder> still trusts it", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-home-" }));
  const folder = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  try {
    assert.deepEqual(await trust([folder], home), {
      printed: [`Trusted ${folder}: its .svc/config.json and .svc/plugins now apply in full`],
      code: 0,
    });
    assert.deepEqual(await trust(["list"], home), { printed: [folder], code: 0 });
    assert.deepEqual(await trust(["list", "--json"], home), {
      printed: [JSON.stringify([folder], null, 2)],
      code: 0,
    });
    assert.deepEqual(await trust(["remove", folder], home), {
      printed: [`No longer trusted: ${folder}`],
      code: 0,
    });
    assert.deepEqual(await trust(["list", "--json"], home), { printed: ["[]"], code: 0 });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(folder, { recursive: true });
  }
});
