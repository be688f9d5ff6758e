// deno-lint-ignore-file no-explicit-any -- request bodies are untyped JSON
/**
 * Scripted agents for the scripted provider (`startFakeProvider(agent)`), playing the bundled
 * eval fixtures: a perfect agent that reads each answer out of its tool results, deliberately
 * wrong agents (one plausible mistake per fixture, and a guesser that uses no tool), and
 * wrappers for a redundant agent and for one agent per model (`--compare`).
 */
import { fixtures } from "../../plugins/svc-core-eval/src/fixtures.ts";
import type { Reply } from "./fake_provider.ts";

/** What an agent sees of a request: the fixture (by its prompt), step and last tool result. */
export interface AgentView {
  fixture: string | undefined;
  /** Tool results so far: 0 before the first call. */
  step: number;
  /** The content of the last tool result. */
  last: string;
}

/** An agent: one reply per request. */
export type Agent = (body: any, index: number) => Reply;

/** Token counts every scripted reply reports (unless `withoutUsage`). */
export const USAGE = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };

function view(body: any): AgentView {
  const messages: Array<{ role: string; content?: string | null }> = body.messages;
  const prompt = messages.find((m) => m.role === "user")?.content ?? "";
  const results = messages.filter((m) => m.role === "tool");
  return {
    fixture: fixtures.find((f) => f.prompt === prompt)?.id,
    step: results.length,
    last: results.at(-1)?.content ?? "",
  };
}

const call = (name: string, args: Record<string, unknown>): Reply => ({
  tool_calls: [{ name, arguments: args }],
  usage: USAGE,
});
const answer = (text: string): Reply => ({ text, usage: USAGE });

/** The text of numbered line `n` in a file_read result. */
function lineOf(result: string, n: number): string {
  const match = new RegExp(`^\\s*${n}\\t(.*)$`, "m").exec(result);
  return match ? match[1] : "(line not found)";
}

/** The names of the files (not folders) in a list_dir result. */
function filesOf(listing: string): string[] {
  return listing.split("\n").slice(1).map((line) => line.trim())
    .filter((line) => line && !line.endsWith("/") && !line.startsWith("["))
    .map((line) => line.replace(/ \([^)]*\)$/, ""));
}

type Script = (v: AgentView) => Reply;

const PERFECT: Record<string, Script> = {
  "read-file-lines": (v) =>
    v.step === 0
      ? call("file_read", { path: "notes/todo.txt", offset: 27, limit: 1 })
      : answer(lineOf(v.last, 27)),
  "find-then-read": (v) =>
    v.step === 0
      ? call("glob", { pattern: "config/**/settings.toml" })
      : v.step === 1
      ? call("file_read", { path: v.last.split("\n").find((l) => l.endsWith("settings.toml")) })
      : answer(`timeout_ms is ${/timeout_ms\s*=\s*(\d+)/.exec(v.last)?.[1]}`),
  "list-directory": (v) => {
    if (v.step === 0) return call("list_dir", { path: "src/handlers" });
    const files = filesOf(v.last);
    return answer(`${files.length} files: ${files.join(", ")}`);
  },
  "grep-symbol": (v) => {
    if (v.step === 0) return call("grep", { pattern: "function computeChecksum\\(" });
    const [path, line] = v.last.split("\n")[0].split(":");
    return answer(`${path}:${line}`);
  },
  "page-large-file": (v) =>
    v.step === 0
      ? call("file_read", { path: "logs/service.log", offset: 2750, limit: 1 })
      : answer(/req-[0-9a-f]+/.exec(lineOf(v.last, 2750))?.[0] ?? "not found"),
};

const GREP_FILES = [
  "src/api/download.ts",
  "src/api/upload.ts",
  "src/legacy/checksum_v1.ts",
  "src/util/hash.ts",
  "test/hash.test.ts",
];

/** One plausible mistake per fixture. */
const WRONG: Record<string, Script> = {
  // Off by one: reads line 26 and quotes it.
  "read-file-lines": (v) =>
    v.step === 0
      ? call("file_read", { path: "notes/todo.txt", offset: 26, limit: 1 })
      : answer(lineOf(v.last, 26)),
  // Reads the example file next to the docs instead of finding the real one.
  "find-then-read": (v) =>
    v.step === 0
      ? call("file_read", { path: "docs/settings.example.toml" })
      : answer(`timeout_ms is ${/timeout_ms\s*=\s*(\d+)/.exec(v.last)?.[1]}`),
  // Counts the files of the subfolder too.
  "list-directory": (v) => {
    if (v.step === 0) return call("list_dir", { path: "src/handlers", depth: 2 });
    const files = filesOf(v.last);
    return answer(`${files.length} files: ${files.join(", ")}`);
  },
  // Reads every file instead of searching, then answers correctly.
  "grep-symbol": (v) =>
    v.step < GREP_FILES.length
      ? call("file_read", { path: GREP_FILES[v.step] })
      : answer("src/util/hash.ts:14"),
  // Reads only the first page and answers with the last id it saw.
  "page-large-file": (v) =>
    v.step === 0
      ? call("file_read", { path: "logs/service.log" })
      : answer([...v.last.matchAll(/req-[0-9a-f]+/g)].at(-1)?.[0] ?? "not found"),
};

function scripted(table: Record<string, Script>): Agent {
  return (body) => {
    const v = view(body);
    const script = v.fixture ? table[v.fixture] : undefined;
    return script ? script(v) : answer("(no script for this prompt)");
  };
}

/** Solves every bundled fixture from its tool results. */
export const perfectAgent: Agent = scripted(PERFECT);

/** Makes one plausible mistake on every bundled fixture. */
export const wrongAgent: Agent = scripted(WRONG);

/** Answers at once without any tool. */
export const guesserAgent: Agent = () => answer("I believe the answer is 42.");

/** The same agent, repeating its first tool call once (identically) before going on. */
export function redundant(agent: Agent): Agent {
  return (body, index) => {
    const results = body.messages.filter((m: any) => m.role === "tool").length;
    if (results === 0) return agent(body, index);
    // Hide one result, so the first call is made once more and the rest follows a step late.
    const toolIndex = body.messages.findIndex((m: any) => m.role === "tool");
    const hidden = results === 1
      ? body.messages.slice(0, toolIndex - 1)
      : [...body.messages.slice(0, toolIndex - 1), ...body.messages.slice(toolIndex + 1)];
    return agent({ ...body, messages: hidden }, index);
  };
}

/** Replies without token usage (a provider that does not report it). */
export function withoutUsage(agent: Agent): Agent {
  return (body, index) => {
    const reply = agent(body, index) as Record<string, unknown>;
    const { usage: _, ...rest } = reply;
    return rest as Reply;
  };
}

/** A different agent per requested model (`--compare`). */
export function byModel(agents: Record<string, Agent>): Agent {
  return (body, index) =>
    (agents[body.model] ?? (() => answer(`(no agent for model ${body.model})`)))(body, index);
}
