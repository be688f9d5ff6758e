/**
 * `svc sessions` end to end: real svc processes in a temp worktree whose session files are
 * written by the test (list, show, search, rm, export, bad refs and usage errors). The search's
 * speed is measured by scripts/bench/sessions_search.ts, not here.
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";

type Box = Awaited<ReturnType<typeof sandbox>>;

const AT = "2026-11-22T05:06:07.000Z";

/** A session with a prompt, a tool call (its result carries a terminal escape) and an answer. */
function notesSession(name: string, extra = "") {
  return {
    name,
    created_at: AT,
    updated_at: AT,
    messages: [
      { role: "user", content: `read notes.txt please${extra}`, timestamp: AT },
      {
        role: "assistant",
        content: null,
        thinking: "I should read the file",
        model: "m",
        usage: { prompt_tokens: 120 },
        tool_calls: [{
          id: "c1",
          type: "function",
          function: { name: "file_read", arguments: '{"path":"notes.txt"}' },
        }],
        timestamp: AT,
      },
      {
        role: "tool",
        tool_call_id: "c1",
        name: "file_read",
        ok: true,
        content: "the PAPAYA \u001b]52;c;aGk=\u0007 word\nsecond line",
        timestamp: AT,
      },
      { role: "assistant", content: "The secret word is PAPAYA.", model: "m", timestamp: AT },
    ],
    errors: [],
    permissions: [],
  };
}

const OLD = "ses_20261120_100000_read-notes-txt";
const NEW = "ses_20261122_050607_read-notes-again";

async function sessionsBox(): Promise<Box> {
  const box = await sandbox();
  const dir = `${box.worktree}/.svc/sessions`;
  await Deno.mkdir(dir, { recursive: true });
  for (const [name, age] of [[OLD, 2], [NEW, 0]] as const) {
    const path = `${dir}/${name}.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify(notesSession(name, name === NEW ? " again" : "")),
    );
    const at = new Date(Date.now() - age * 86_400_000);
    await Deno.utime(path, at, at);
  }
  return box;
}

function sessions(box: Box, args: string[]) {
  return svc(["sessions", ...args, "--path", box.worktree], { cwd: box.home, env: box.env });
}

Deno.test("svc sessions list, show and export print the sessions, tool calls folded and escapes visible", async () => {
  await using box = await sessionsBox();
  const list = await sessions(box, ["list"]);
  assert.equal(list.code, 0, list.stderr);
  const lines = list.stdout.trim().split("\n");
  assert.match(lines[0], /^NAME\s+TURNS\s+MESSAGES\s+SIZE\s+LAST ACTIVITY/);
  assert.match(lines[1], new RegExp(`^${NEW}\\s+1\\s+4\\s+\\d`));
  assert.match(lines[2], new RegExp(`^${OLD}\\s`));
  const json = JSON.parse((await sessions(box, ["list", "--json", "--limit", "1"])).stdout);
  assert.deepEqual(json.map((r: { name: string; turns: number }) => [r.name, r.turns]), [[NEW, 1]]);

  const show = await sessions(box, ["show", "ses_20261120"]);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, new RegExp(`^session ${OLD}`));
  assert.match(
    show.stdout,
    /context: ~\d+ tokens of messages in the next request .*last request: 120 prompt tokens/,
  );
  assert.match(show.stdout, /read notes\.txt please/);
  assert.match(
    show.stdout,
    /> file_read \{"path":"notes\.txt"\} => the PAPAYA \\x1b\]52;c;aGk=\\x07 word \(\+1 lines\)/,
  );
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(show.stdout, /\x1b|I should read the file/);
  const thinking = await sessions(box, ["show", OLD, "--thinking"]);
  assert.match(thinking.stdout, /\| I should read the file/);
  const shown = JSON.parse((await sessions(box, ["show", OLD, "--json"])).stdout);
  assert.equal(shown.name, OLD);
  assert.equal(shown.messages.length, 4);
  assert.equal(shown.context.last_prompt_tokens, 120);

  const exported = await sessions(box, ["export", NEW, "--output", `${box.home}/out.md`]);
  assert.equal(exported.code, 0, exported.stderr);
  const markdown = await Deno.readTextFile(`${box.home}/out.md`);
  assert.match(markdown, new RegExp(`^# Session ${NEW}\n`));
  assert.match(markdown, /## User · 2026-11-22 05:06:07\n\nread notes\.txt please again/);
  assert.match(markdown, /- `file_read \{"path":"notes\.txt"\}` → `the PAPAYA/);
  assert.match(markdown, /## Assistant \(m\) · 2026-11-22 05:06:07\n\nThe secret word is PAPAYA\./);
});

Deno.test("svc sessions search ranks the sessions and shows the matching lines", async () => {
  await using box = await sessionsBox();
  const found = await sessions(box, ["search", "papaya"]);
  assert.equal(found.code, 0, found.stderr);
  const blocks = found.stdout.trim().split("\n\n");
  assert.match(blocks[0], new RegExp(`^${NEW}  2 matches in 2 messages`));
  assert.match(blocks[0], /#3 tool file_read: the >>PAPAYA<< \\x1b\]52;c;aGk=\\x07 word/);
  assert.match(blocks[0], /#4 assistant: The secret word is >>PAPAYA<<\./);
  assert.match(blocks[1], new RegExp(`^${OLD}`));
  assert.match(blocks[2], /^2 sessions shown of 2 searched/);
  const json = JSON.parse((await sessions(box, ["search", "again", "--json"])).stdout);
  assert.deepEqual(json.map((r: { name: string }) => r.name), [NEW]);
  const none = await sessions(box, ["search", "mango"]);
  assert.match(none.stdout, /No session mentions "mango" \(2 searched\)/);
});

Deno.test("svc sessions rm asks for --yes without a terminal; bad refs suggest close names", async () => {
  await using box = await sessionsBox();
  const refused = await sessions(box, ["rm", OLD]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /not asking without a terminal: svc sessions rm .* --yes/);
  const ambiguous = await sessions(box, ["show", "ses_2026112"]);
  assert.equal(ambiguous.code, 1);
  assert.match(ambiguous.stderr, new RegExp(`matches 2 sessions: ${NEW}, ${OLD}`));
  const typo = await sessions(box, ["export", "ses_20261120_100000_read-notez-txt"]);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, new RegExp(`did you mean ${OLD}`));
  const usage = await sessions(box, ["list", "--limit", "0"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--limit takes a whole number of 1 or more/);
  const removed = await sessions(box, ["rm", "ses_20261120", "--yes"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(removed.stdout.trim(), `deleted ${OLD}`);
  assert.equal(
    await Deno.stat(`${box.worktree}/.svc/sessions/${OLD}.json`).catch(() => null),
    null,
  );
});
