/**
 * What users run is what the tests prove: every command of svc, run once from the source tree and
 * once through the command `deno task install` makes (one install for the file), must give the
 * same exit code, stdout and stderr (paths, ports, times and ids normalized) and what each scenario
 * expects. The rest of the end-to-end suite runs the source tree; this file is where a difference
 * of the bundle (a chunk's exports, a module loaded by URL, the launcher) shows.
 */
import assert from "node:assert/strict";
import { type CliResult, sandbox } from "../_support/cli.ts";
import {
  CALLER_DENO_DIR as DENO_DIR,
  installBuild,
  runBuild,
  SOURCE_BUILD,
  spawnBuild,
  type SvcBuild,
} from "../_support/builds.ts";
import { type FakeProvider, startFakeProvider } from "../_support/fake_provider.ts";
import { VERSION } from "../../src/version.ts";
import { PAGE_JS } from "../../src/http/ui/page_js.ts";

type Box = Awaited<ReturnType<typeof sandbox>>;
// Every svc runs with the caller's Deno cache: a plugin sandbox of svc's, started under the temp
// HOME's empty default cache, would download every package of the import map first.

/** One user's session with svc: a fresh HOME and worktree, and the commands it runs. */
interface Scenario {
  name: string;
  /** Files of the worktree. */
  files?: Record<string, string>;
  trusted?: boolean;
  /** The scripted provider's answers (a fresh provider for each build). */
  script?: Parameters<typeof startFakeProvider>[0];
  /** Runs the commands and returns what the user saw, in order. */
  run(svc: Svc, box: Box, fake: FakeProvider | null): Promise<CliResult[]>;
  /** What the results must show (checked on the source tree's results; both are equal). */
  expect(results: CliResult[], fake: FakeProvider | null): void;
}

type Svc = (args: string[], stdin?: string) => Promise<CliResult>;

/** A skill in the SKILL.md layout with YAML front matter, as docs/agents.md shows it. */
const SKILL = "---\nname: review\ndescription: Review a change\ntags: [code, review]\n---\n" +
  "Read the diff and list problems.\n";
const TYPES = JSON.stringify({
  reviewer: { description: "Reviews", system_prompt: "You review code.", skills: ["review"] },
});
const TEAMS = JSON.stringify({
  duo: { description: "Two stages", stages: ["reviewer", "reviewer"] },
});

const SCENARIOS: Scenario[] = [
  {
    name: "--version, --help, a command's --help and a usage error",
    run: async (svc) => [
      await svc(["--version"]),
      await svc(["--help"]),
      await svc(["run", "--help"]),
      await svc(["config", "set", "max_tokens", "1", "--frobnicate"]),
    ],
    expect([version, help, runHelp, usage]) {
      assert.deepEqual(version, { code: 0, stdout: `${VERSION}\n`, stderr: "" });
      assert.equal(help.code, 0);
      for (const name of ["run", "config", "serve", "mcp", "jobs", "fleet", "eval", "skills"]) {
        assert.match(help.stdout, new RegExp(`\\n  ${name} `), name);
      }
      assert.match(runHelp.stdout, /^Usage: svc run /);
      assert.deepEqual([usage.code, usage.stderr.split("\n")[0]], [
        2,
        "error: unknown option '--frobnicate'",
      ]);
    },
  },
  {
    name: "run: a tool round reads a file, the answer streams, --output json holds the result",
    files: { "notes.txt": "The secret word is PAPAYA.\n" },
    script: [
      { tool_calls: [{ name: "file_read", arguments: { path: "notes.txt" } }] },
      { text: "PAPAYA" },
      { tool_calls: [{ name: "list_dir", arguments: { path: "." } }] },
      { text: "listed" },
    ],
    run: async (svc, _box, fake) => [
      await svc(["run", "--base-url", fake!.url, "--model", "m", "-p", "secret?"]),
      await svc(["run", "--base-url", fake!.url, "--model", "m", "--output", "json", "-p", "ls"]),
    ],
    expect([text, json], fake) {
      assert.deepEqual([text.code, text.stdout], [0, "PAPAYA\n"], text.stderr);
      assert.match(text.stderr, /-> file_read \{"path":"notes\.txt"\}/);
      assert.ok(fake!.requests[1].body.messages.at(-1).content.includes("PAPAYA"));
      assert.equal(json.code, 0, json.stderr);
      const result = JSON.parse(json.stdout);
      assert.deepEqual([result.status, result.content], ["ok", "listed"]);
    },
  },
  {
    name: "run: a schema'd answer is repaired and validated, the turn streamed as stream-json",
    script: [{ text: "not json" }, { text: '{"word": "hi"}' }, { text: "done" }],
    run: async (svc, _box, fake) => [
      await svc([
        ...["run", "--base-url", fake!.url, "--model", "m"],
        ...["--json-schema", '{"type": "object", "required": ["word"]}', "-p", "word?"],
      ]),
      await svc([
        ...["run", "--base-url", fake!.url, "--model", "m", "--output", "stream-json"],
        ...["--max-turns", "2", "-p", "go"],
      ]),
    ],
    expect([structured, stream]) {
      assert.deepEqual(
        [structured.code, structured.stdout],
        [0, '{"word":"hi"}\n'],
        structured.stderr,
      );
      assert.equal(stream.code, 0, stream.stderr);
      const lines = stream.stdout.trim().split("\n").map((line) => JSON.parse(line));
      assert.deepEqual(lines.map((l) => l.type), ["system", "assistant", "result"]);
      assert.deepEqual([lines[2].subtype, lines[2].result], ["success", "done"]);
    },
  },
  {
    name: "types, skills and teams: a SKILL.md with front matter is listed, shown and applied",
    files: {
      ".svc/skills/review/SKILL.md": SKILL,
      ".svc/types.json": TYPES,
      ".svc/teams.json": TEAMS,
    },
    script: [{ text: "reviewed" }],
    run: async (svc, _box, fake) => [
      await svc(["skills", "list", "--json"]),
      await svc(["skills", "show", "review"]),
      await svc(["types", "list"]),
      await svc(["types", "show", "reviewer"]),
      await svc(["teams", "show", "duo"]),
      await svc(["run", "--base-url", fake!.url, "--model", "m", "--type", "reviewer", "-p", "go"]),
    ],
    expect(results, fake) {
      for (const r of results) {
        assert.equal(r.code, 0, r.stderr);
        assert.doesNotMatch(r.stderr, /skipped|not valid/, r.stderr);
      }
      const [list, show, types, type, team, run] = results;
      const skills = JSON.parse(list.stdout);
      assert.deepEqual(
        skills.map((s: Record<string, unknown>) => [s.name, s.description, s.tags]),
        [
          ["review", "Review a change", ["code", "review"]],
        ],
      );
      assert.match(show.stdout, /Read the diff and list problems\./);
      assert.match(types.stdout, /\nreviewer +local /);
      assert.match(type.stdout, /review/);
      assert.match(team.stdout, /reviewer/);
      assert.equal(run.stdout, "reviewed\n");
      const system = fake!.requests[0].body.messages[0].content as string;
      assert.match(system, /You review code\./);
      assert.match(system, /## Skills[\s\S]*Read the diff and list problems\./);
    },
  },
  {
    name: "config, connect and trust write and read their files",
    script: [],
    run: async (svc, box, fake) => [
      await svc(["config", "set", "max_tokens", "1234"]),
      await svc(["config", "get", "max_tokens"]),
      await svc(["config", "set", "--global", "model", "m2"]),
      await svc(["config", "unset", "max_tokens"]),
      await svc(["config", "get", "max_tokens"]),
      await svc(["connect", fake!.url, "local", "--key-stdin", "--global", "--json"], "sk-test\n"),
      await svc(["trust", "--json", box.worktree]),
      await svc(["config", "list", "--json"]),
    ],
    expect(results) {
      for (const r of results) assert.equal(r.code, 0, r.stderr);
      const [, got, , , unset, connected, trusted, list] = results;
      assert.equal(got.stdout, "1234\n");
      assert.notEqual(unset.stdout, "1234\n");
      assert.equal(JSON.parse(connected.stdout).provider, "local");
      assert.ok(JSON.stringify(JSON.parse(trusted.stdout)).includes("<WORK>"));
      const config = JSON.parse(list.stdout);
      assert.deepEqual([config.model, config.provider], ["m2", "local"]);
    },
  },
  {
    name: "sandbox: status names the sandbox, and run holds a command in it",
    script: [],
    run: async (svc, box) => [
      // Hidden paths are listed when they exist; the installed build makes this folder itself.
      await Deno.mkdir(`${box.home}/.config/svc`, { recursive: true, mode: 0o700 }).then(() =>
        svc(["sandbox", "status", "--json"])
      ),
      await svc(["sandbox", "run", "--", "echo made > made.txt; cat made.txt"]),
    ],
    expect(results) {
      const [status, run] = results;
      assert.equal(status.code, 0, status.stderr);
      const parsed = JSON.parse(status.stdout);
      if (parsed.commands !== "sandboxed") return; // no bubblewrap here: tests/sandbox says why
      assert.deepEqual([parsed.mode, parsed.writable], ["workspace-write", ["<WORK>"]]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "exit code 0\nstdout:\nmade\n");
    },
  },
  {
    name: "plugins: the bundled plugins load, and a third-party one installs and runs sandboxed",
    trusted: true,
    script: [
      { tool_calls: [{ name: "word_count", arguments: { text: "a b" } }] },
      { text: "counted" },
    ],
    run: async (svc, _box, fake) => [
      await svc(["plugins", "list", "--json"]),
      await svc([
        "plugins",
        "install",
        new URL("../../docs/plugin_example", import.meta.url).pathname,
      ]),
      await svc(["config", "set", "plugins", "[]"]),
      await svc(["run", "--base-url", fake!.url, "--model", "m", "-p", "count"]),
    ],
    expect([list, installed, everyPlugin, run], fake) {
      assert.equal(list.code, 0, list.stderr);
      const plugins = JSON.parse(list.stdout) as Array<{ name: string; status: string }>;
      const core = plugins.filter((p) => p.name.startsWith("svc-core-"));
      assert.equal(core.length, 8);
      assert.deepEqual(core.filter((p) => p.status !== "loaded"), []);
      assert.deepEqual(
        [installed.code, everyPlugin.code],
        [0, 0],
        installed.stderr + everyPlugin.stderr,
      );
      assert.deepEqual([run.code, run.stdout], [0, "counted\n"], run.stderr);
      assert.equal(fake!.requests[1].body.messages.at(-1).content, "2 words, 1 line, 3 characters");
    },
  },
  {
    name: "eval lists the bundled fixtures; mcp answers initialize and tools/list on stdio",
    run: async (svc) => [
      await svc(["eval", "list", "--output", "json"]),
      await svc(
        ["mcp"],
        [
          { id: 1, method: "initialize", params: MCP_INIT },
          { method: "notifications/initialized" },
          { id: 2, method: "tools/list" },
        ].map((m) => JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n").join(""),
      ),
    ],
    expect([evals, mcp]) {
      assert.equal(evals.code, 0, evals.stderr);
      assert.ok(JSON.parse(evals.stdout).length > 0);
      assert.equal(mcp.code, 0, mcp.stderr);
      const [init, tools] = mcp.stdout.trim().split("\n").map((line) => JSON.parse(line));
      assert.deepEqual(init.result.serverInfo, { name: "svc", version: VERSION });
      const names = tools.result.tools.map((t: { name: string }) => t.name);
      for (const name of ["file_read", "grep", "run_command"]) assert.ok(names.includes(name));
    },
  },
  {
    name: "jobs: add, approve, run once and list",
    script: (body: { stream?: boolean }) =>
      body.stream === false ? { text: "memory" } : { text: "digest done" },
    run: async (svc, box, fake) => {
      await Deno.writeTextFile(
        `${box.worktree}/.svc/config.json`,
        JSON.stringify({ base_url: fake!.url, model: "m", stream_retries: 0 }),
      );
      return [
        await svc(["jobs", "add", "digest", "--every", "3600", "--prompt", "Write the digest"]),
        await svc(["jobs", "approve", "digest"]),
        await svc(["jobs", "run", "digest"]),
        await svc(["jobs", "list", "--json"]),
      ];
    },
    files: { ".svc/.keep": "" },
    expect(results) {
      for (const r of results) assert.equal(r.code, 0, r.stderr);
      assert.equal(results[2].stdout, "digest done\n");
      const [job] = JSON.parse(results[3].stdout);
      assert.equal(job.name, "digest");
    },
  },
  {
    name: "fleet: init finds the agent folders, status reports them stopped",
    files: { "alpha/.svc/config.json": '{"model":"m"}', "beta/.svc/config.json": '{"model":"m"}' },
    run: async (svc) => [
      await svc(["fleet", "init", "--no-trust"]),
      await svc(["fleet", "status", "--json"]),
    ],
    expect([init, status]) {
      assert.equal(init.code, 0, init.stderr);
      assert.equal(status.code, 0, status.stderr);
      const agents = JSON.parse(status.stdout) as Array<{ name: string; state: string }>;
      assert.deepEqual(agents.map((a) => [a.name, a.state]), [["alpha", "stopped"], [
        "beta",
        "stopped",
      ]]);
    },
  },
];

const MCP_INIT = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "t", version: "1" },
};

/** Replaces what differs between two sandboxes: paths, the provider's port, times and ids. */
function normalized(
  result: CliResult,
  where: { build: SvcBuild; box: Box; fake: FakeProvider | null },
): CliResult {
  const { build, box, fake } = where;
  const clean = (text: string) => {
    let out = text.replaceAll(box.worktree, "<WORK>").replaceAll(box.home, "<HOME>")
      .replaceAll(build.folder, "<BUILD>/");
    if (fake) out = out.replaceAll(fake.url.replace("http://", ""), "<PROVIDER>");
    return out
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?/g, "<TIME>")
      .replace(/\d{8}_\d{6}/g, "<STAMP>")
      .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "<DURATION>")
      .replace(/"(duration|duration_ms|elapsed_ms)": ?[\d.]+/g, '"$1": 0');
  };
  return { code: result.code, stdout: clean(result.stdout), stderr: clean(result.stderr) };
}

/** Runs `scenario` on `build` in its own sandbox; returns the normalized results. */
async function play(build: SvcBuild, scenario: Scenario) {
  await using box = await sandbox(scenario.files ?? {}, { trusted: scenario.trusted });
  await Deno.mkdir(`${box.worktree}/.svc`, { recursive: true });
  const fake = scenario.script ? await startFakeProvider(scenario.script) : null;
  try {
    const svc: Svc = (args, stdin) =>
      runBuild(build, args, { cwd: box.worktree, env: { ...box.env, DENO_DIR }, stdin });
    const results = await scenario.run(svc, box, fake);
    return { results: results.map((r) => normalized(r, { build, box, fake })), fake };
  } finally {
    await fake?.close();
  }
}

Deno.test("the installed svc gives every command's results exactly as the source tree does", async (t) => {
  await using installed = await installBuild();
  for (const scenario of SCENARIOS) {
    await t.step(scenario.name, async () => {
      const source = await play(SOURCE_BUILD, scenario);
      scenario.expect(source.results, source.fake);
      const built = await play(installed, scenario);
      assert.deepEqual(built.results, source.results);
    });
  }
  await t.step(
    "serve: /health, the --ui page, an authorized POST /chat, then SIGTERM ends it",
    async () => {
      const source = await serveTurn(SOURCE_BUILD);
      assert.deepEqual(source, {
        health: { status: "ok" },
        page: { status: 200, script: PAGE_JS },
        chat: { status: "ok", content: "served" },
        code: 0,
      });
      assert.deepEqual(await serveTurn(installed), source);
    },
  );
});

/**
 * `svc serve --port 0 --ui`: the health body, the page's script (its files are string modules the
 * bundle must carry), one chat's status and text, and the exit code.
 */
async function serveTurn(build: SvcBuild) {
  await using box = await sandbox();
  const fake = await startFakeProvider([{ text: "served" }]);
  await Deno.mkdir(`${box.worktree}/.svc`);
  await Deno.writeTextFile(
    `${box.worktree}/.svc/config.json`,
    JSON.stringify({ base_url: fake.url, model: "m" }),
  );
  const child = spawnBuild(build, ["serve", "--port", "0", "--ui"], {
    cwd: box.worktree,
    env: { ...box.env, DENO_DIR },
  });
  try {
    child.stdout.cancel();
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const deadline = setTimeout(() => child.kill("SIGKILL"), 15_000);
    while (!/listening on (http:\/\/\S+) .*\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`svc serve (${build.name}) exited:\n${text}`);
      text += value;
    }
    clearTimeout(deadline);
    const url = /listening on (http:\/\/\S+) /.exec(text)![1];
    const tokenFile = /; (?:new )?token in (.+)\)$/m.exec(text)![1];
    const token = (await Deno.readTextFile(tokenFile)).trim();
    const health = await (await fetch(`${url}/health`)).json();
    const script = await fetch(`${url}/ui/app.js`);
    const page = { status: script.status, script: await script.text() };
    const reply = await fetch(`${url}/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "hi" }),
    });
    const turn = await reply.json();
    child.kill("SIGTERM");
    reader.releaseLock();
    await child.stderr.cancel().catch(() => {});
    const { code } = await child.status;
    return {
      health: { status: health.status },
      page,
      chat: { status: turn.status, content: turn.content },
      code,
    };
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await fake.close();
  }
}
