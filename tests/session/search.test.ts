/** The session search in process: the raw prefilter, ranking, excerpts and the size cap. */
import assert from "node:assert/strict";
import { searchSessions } from "../../src/session/search.ts";
import { sessionFiles, summarize } from "../../src/session/listing.ts";
import { sessionContext } from "../../src/runtime/session_context.ts";

const DAY = 86_400_000;

async function write(dir: string, name: string, contents: string[], ageDays = 0) {
  const messages = contents.map((content, i) => ({
    role: i % 2 ? "assistant" : "user",
    content,
    timestamp: "2026-11-22T05:06:07.000Z",
  }));
  const path = `${dir}/${name}.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      name,
      created_at: "c",
      updated_at: "u",
      messages,
      errors: [],
      permissions: [],
    }),
  );
  const at = new Date(Date.now() - ageDays * DAY);
  await Deno.utime(path, at, at);
}

Deno.test("search ranks by matches and recency, shows the matching lines and skips big files", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await write(dir, "ses_a_one", ["look at the Widget", "a widget, another widget"], 0);
    await write(dir, "ses_b_old", ["widget widget widget widget", "widget"], 90);
    await write(dir, "ses_c_quote", ['he said "widget\nlines"', "none here"], 1);
    await write(dir, "ses_d_widget_in_name_only", ["nothing", "nothing"], 0);
    await write(dir, "ses_e_big", ["widget ".repeat(400)], 0);
    const report = searchSessions(dir, "WIDGET", { limit: 10, maxFileBytes: 1024 });
    assert.deepEqual(report.results.map((r) => r.name), ["ses_a_one", "ses_c_quote", "ses_b_old"]);
    assert.equal(report.results[0].matches, 3);
    assert.equal(report.results[0].messages, 2);
    assert.deepEqual(report.results[0].hits[0], {
      index: 0,
      role: "user",
      text: "look at the Widget",
    });
    assert.deepEqual(report.skipped.map((s) => s.name), ["ses_e_big"]);
    assert.equal(report.scanned, 4);
    // A quote and a line end are stored escaped in JSON; the search finds them all the same.
    const quoted = searchSessions(dir, '"widget\nlines"', { limit: 10 });
    assert.deepEqual(quoted.results.map((r) => r.name), ["ses_c_quote"]);
    assert.equal(quoted.results[0].hits[0].text, 'he said "widget lines"');
    // --limit keeps the best; the lesser candidates are never parsed.
    assert.deepEqual(
      searchSessions(dir, "widget", { limit: 1 }).results.map((r) => r.name),
      ["ses_e_big"],
    );
    assert.equal(searchSessions(dir, "absent", { limit: 5 }).results.length, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the listing counts turns without parsing and orders newest first", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await write(dir, "ses_old", ['a prompt that quotes "role":"user" inside', "b", "c"], 2);
    await write(dir, "ses_new", ["x", "y"], 0);
    const rows = sessionFiles(dir).map(summarize);
    assert.deepEqual(rows.map((r) => [r.name, r.turns, r.messages]), [
      ["ses_new", 1, 2],
      ["ses_old", 2, 3],
    ]);
    assert.equal(rows[0].created_at, "c");
    assert.deepEqual(sessionFiles(`${dir}/missing`), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the context figure counts from the last compaction on", () => {
  const at = "2026-11-22T05:06:07.000Z";
  const long = "x".repeat(400);
  const messages = [
    { role: "user" as const, content: long, timestamp: at },
    { role: "assistant" as const, content: long, timestamp: at, usage: { prompt_tokens: 150 } },
    { role: "user" as const, content: "y".repeat(40), timestamp: at },
    { role: "system" as const, content: "s".repeat(80), timestamp: at, compact_from: 2 },
  ];
  const before = sessionContext({ messages: messages.slice(0, 3) });
  assert.equal(before.estimated_tokens, 210);
  assert.equal(before.compactions, 0);
  assert.equal(before.last_prompt_tokens, 150);
  const after = sessionContext({ messages });
  assert.equal(after.compactions, 1);
  assert.equal(after.from_message, 3);
  assert.ok(after.estimated_tokens < 50, `${after.estimated_tokens}`);
});
