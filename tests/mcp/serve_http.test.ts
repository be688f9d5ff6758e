import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { startServe, writeConfig } from "../http/_serve.ts";
import { ENVELOPE, v1Http, v2Http } from "./_clients.ts";

Deno.test("official MCP clients drive POST /mcp of a running svc serve", async (t) => {
  await using box = await sandbox({ "notes.txt": "gamma\n" });
  const fake = await startFakeProvider([{ text: "noted" }]);
  await writeConfig(box.worktree, fake.url);
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  const url = `${served.url}/mcp`;
  try {
    const chat = await served.fetch(`${served.url}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: "note this", session_id: "noted" }),
    });
    assert.equal(chat.status, 200);
    await chat.body?.cancel();
    for (const era of ["auto", "legacy"] as const) {
      await t.step(`v2 client, ${era} era`, async () => {
        const client = await v2Http(url, era, served.fetch);
        try {
          assert.equal(
            client.getNegotiatedProtocolVersion(),
            era === "auto" ? "2026-07-28" : "2025-11-25",
          );
          const { tools } = await client.listTools();
          assert.ok(tools.some((tool) => tool.name === "file_read"));
          const read = await client.callTool({
            name: "file_read",
            arguments: { path: "notes.txt" },
          });
          assert.match((read.content as Array<{ text: string }>)[0].text, /1\s+gamma/);
          const doc = await client.readResource({ uri: "svc://session/noted" });
          const stored = JSON.parse((doc.contents[0] as { text: string }).text);
          assert.deepEqual(stored.messages.map((m: { content: string }) => m.content), [
            "note this",
            "noted",
          ]);
        } finally {
          await client.close();
        }
      });
    }
    await t.step("v1 SDK client, legacy era", async () => {
      const client = await v1Http(url, served.fetch);
      try {
        const { resources } = await client.listResources();
        assert.deepEqual(resources.map((r: { uri: string }) => r.uri), ["svc://session/noted"]);
        const read = await client.callTool({ name: "list_dir", arguments: { path: "." } });
        assert.match((read.content as Array<{ text: string }>)[0].text, /notes\.txt/);
      } finally {
        await client.close();
      }
    });
    await t.step("stderr carries only the startup and shutdown lines", async () => {
      assert.equal(await served.stop(), 0);
      assert.deepEqual(served.stderr().trim().split("\n").map((l) => l.split(" (")[0]), [
        `svc serve: listening on ${served.url}`,
        "svc serve: shutting down",
      ]);
    });
  } finally {
    await served.stop();
    await fake.close();
  }
});

Deno.test("a client that closes its POST /mcp request over a socket cancels its command", async () => {
  await using box = await sandbox();
  const fake = await startFakeProvider([]);
  await writeConfig(box.worktree, fake.url);
  const served = await startServe([], { cwd: box.worktree, env: box.env });
  const audit = `${box.worktree}/.svc/logs/mcp_audit.jsonl`;
  try {
    const client = new AbortController();
    const pending = served.fetch(`${served.url}/mcp`, {
      method: "POST",
      signal: client.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "run_command",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "run_command",
          arguments: { command: "sleep 2; touch X" },
          _meta: ENVELOPE,
        },
      }),
    }).catch((err) => err);
    await new Promise((r) => setTimeout(r, 500));
    const closed = performance.now();
    client.abort();
    assert.equal((await pending).name, "AbortError");
    const outcome = async () =>
      JSON.parse((await Deno.readTextFile(audit).catch(() => "{}")).trim() || "{}").outcome;
    while (!(await outcome()) && performance.now() - closed < 5000) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(await outcome(), "cancelled");
    assert.ok(performance.now() - closed < 1500, "the command was not stopped at once");
    await new Promise((r) => setTimeout(r, 2500));
    await assert.rejects(Deno.stat(`${box.worktree}/X`), Deno.errors.NotFound);
  } finally {
    assert.equal(await served.stop(), 0);
    await fake.close();
  }
});
