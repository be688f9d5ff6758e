/**
 * Through `svc run` (a real process with the entry points' permissions, a scripted provider): a
 * global plugin's tool that starts a process, fetches a loopback URL and reads HOME's
 * providers.json gets a permission error for each without permissions, and works when its
 * manifest grants them.
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

Deno.test("svc run: a global plugin's tool is refused what its manifest does not grant, and gets what it does", async () => {
  await using box = await sandbox();
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("pong"),
  );
  const config = `${box.home}/.config/svc`;
  const keys = `${config}/providers.json`;
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const plugin = `${config}/plugins/probe`;
  await Deno.mkdir(plugin, { recursive: true });
  await Deno.writeTextFile(keys, `{"openai": {"api_key": "sk-test-not-real"}}`);
  await Deno.writeTextFile(`${config}/config.json`, `{"plugins": ["svc-core-fs", "probe"]}`);
  await Deno.writeTextFile(
    `${plugin}/mod.ts`,
    `import { z } from "zod";
export function register_tools(registry) {
  registry.add({
    name: "probe",
    category: "read",
    description: "Tries one thing",
    schema: z.object({ what: z.enum(["run", "net", "keys", "throw"]) }),
    async run({ what }) {
      console.log("probing " + what);
      if (what === "run") return String((await new Deno.Command("true").output()).success);
      if (what === "net") return await (await fetch(${JSON.stringify(url)})).text();
      if (what === "keys") {
        return Object.keys(JSON.parse(Deno.readTextFileSync(${JSON.stringify(keys)}))).join(",");
      }
      throw new Error("kaboom");
    },
  });
}
`,
  );
  const turn = async (permissions: unknown) => {
    await Deno.writeTextFile(
      `${plugin}/manifest.json`,
      JSON.stringify({ name: "probe", version: "1.0.0", svc_version: "*", permissions }),
    );
    const calls = ["run", "net", "keys", "throw"].map((what) => ({
      name: "probe",
      arguments: { what },
    }));
    const fake = await startFakeProvider([{ tool_calls: calls }, { text: "done" }]);
    const out = await svc(
      ["run", "--base-url", fake.url, "--model", "m", "-p", "probe", "--output", "json"],
      { cwd: box.worktree, env: box.env },
    );
    await fake.close();
    assert.equal(out.code, 0, out.stderr);
    const result = JSON.parse(out.stdout);
    assert.deepEqual([result.status, result.content], ["ok", "done"]);
    assert.match(out.stderr, /\[plugin probe\] probing run\n/);
    return fake.requests[1].body.messages
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
  };
  const refused = (what: string) =>
    `Error: tool failed: Requires ${what}: plugin probe is not granted it (see "permissions" ` +
    "in its manifest.json)";
  assert.deepEqual(await turn({}), [
    refused(`run access to "true"`),
    refused(`net access to "127.0.0.1:${server.addr.port}"`),
    refused(`read access to "${keys}"`),
    "Error: tool failed: kaboom",
  ]);
  assert.deepEqual(
    await turn({
      run: ["true"],
      net: [`127.0.0.1:${server.addr.port}`],
      read: ["~/.config/svc/providers.json"],
    }),
    ["true", "pong", "openai", "Error: tool failed: kaboom"],
  );
});

Deno.test("svc trust says what the worktree's own plugins may use once they load", async () => {
  const manifest = (name: string, permissions: unknown) =>
    JSON.stringify({ name, version: "1.0.0", svc_version: "*", permissions });
  await using box = await sandbox({
    ".svc/plugins/probe/manifest.json": manifest("probe", {
      read: true,
      net: ["api.example.com"],
      run: ["git"],
    }),
    ".svc/plugins/probe/mod.ts": "",
    ".svc/plugins/quiet/manifest.json": manifest("quiet", {}),
    ".svc/plugins/quiet/mod.ts": "",
    ".svc/plugins/greedy/manifest.json": manifest("greedy", { read: ["~"] }),
    ".svc/plugins/greedy/mod.ts": "",
  });
  const out = await svc(["trust"], { cwd: box.worktree, env: box.env });
  assert.equal(out.code, 0, out.stderr);
  const home = await Deno.realPath(box.home);
  assert.equal(
    out.stdout,
    `Trusted ${box.worktree}: its .svc/config.json and .svc/plugins now apply in full\n` +
      "Its plugins run sandboxed; each may use:\n" +
      `  greedy: not loaded: permissions.read: "~" (${home}) contains svc's own folder ` +
      `${home}/.config/svc (API keys, trust list)\n` +
      "  probe: read: the worktree; net: api.example.com; run: git (the plugin then runs in " +
      "svc's OS sandbox, unless sandbox.mode is danger-full-access)\n" +
      "  quiet: nothing beyond its own folder\n",
  );
});
