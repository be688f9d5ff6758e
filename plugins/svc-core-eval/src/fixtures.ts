/**
 * The five bundled fixtures. Each grades the outcome (the answer) and the path (which tools,
 * which arguments, how many calls), and each is shown to fail on a deliberately wrong agent in
 * tests/fixtures.test.ts before it is trusted.
 */
import type { EvalFixtureDef } from "../../../src/plugin/api.ts";
import { logRequestId, serviceLog, todoFile, todoRef } from "./content.ts";

/** The line read-file-lines asks for. */
export const TODO_LINE = 27;
/** The line page-large-file asks for. */
export const LOG_LINE = 2750;

/** read-file-lines: one line of a file by its number, quoted alone. */
const readFileLines: EvalFixtureDef = {
  id: "read-file-lines",
  description: "Quote one line of a 40-line file by its number (file_read with a path)",
  prompt: `What is written on line ${TODO_LINE} of notes/todo.txt? ` +
    "Reply with the text of that line only.",
  files: { "notes/todo.txt": todoFile() },
  expected: ["file_read"],
  verify: {
    must_include: ["file_read"],
    max_calls: 3,
    args: [{ tool: "file_read", match: { path: { path: "notes/todo.txt" } } }],
    answer: {
      contains: [todoRef(TODO_LINE)],
      absent: [todoRef(TODO_LINE - 1), todoRef(TODO_LINE + 1)],
    },
  },
};

/** find-then-read: locate a file by name under a folder, then read a value from it. */
const findThenRead: EvalFixtureDef = {
  id: "find-then-read",
  description: "Find a file by name in a nested folder, then read a value from it",
  prompt: "There is exactly one file named settings.toml under the config/ folder of this " +
    "project. Find it, read it, and tell me the value of timeout_ms it sets.",
  files: {
    "README.md": "# billing service\n\nSettings live under config/.\n",
    "config/README.md": "Each service keeps its settings.toml in its own folder.\n",
    "config/services/billing/settings.toml":
      "[server]\nport = 8080\ntimeout_ms = 4500\nretries = 3\n",
    "config/services/billing/schema.json": '{ "type": "object" }\n',
    "docs/settings.example.toml": "[server]\nport = 80\ntimeout_ms = 1000\nretries = 0\n",
    "src/main.ts": "export function main(): void {}\n",
  },
  expected: ["glob", "file_read"],
  verify: {
    must_include: ["file_read"],
    min_calls: 2,
    max_calls: 5,
    args: [{
      tool: "file_read",
      match: { path: { path: "config/services/billing/settings.toml" } },
    }],
    answer: { contains: ["4500"] },
  },
};

const HANDLERS = ["auth.ts", "billing.ts", "health.ts", "users.ts", "webhooks.ts"];

/** list-directory: count and name the files of one folder, not of its subfolders. */
const listDirectory: EvalFixtureDef = {
  id: "list-directory",
  description: "Count and name the files of one folder, not those of its subfolder",
  prompt: "How many files are directly inside the folder src/handlers (files in its " +
    "subfolders do not count)? Give the number and their names.",
  files: {
    ...Object.fromEntries(
      HANDLERS.map((name) => [`src/handlers/${name}`, `export const name = "${name}";\n`]),
    ),
    "src/handlers/internal/metrics.ts": "export const metrics = {};\n",
    "src/handlers/internal/tracing.ts": "export const tracing = {};\n",
    "src/index.ts": 'export * from "./handlers/auth.ts";\n',
  },
  expected: ["list_dir"],
  verify: {
    must_include: ["list_dir"],
    max_calls: 3,
    args: [{ tool: "list_dir", match: { path: { path: "src/handlers" } } }],
    answer: { contains: HANDLERS, regex: "\\b(5|five)\\b" },
  },
};

/** grep-symbol: where a function is defined, found by searching rather than reading. */
const grepSymbol: EvalFixtureDef = {
  id: "grep-symbol",
  description: "Find where a function is defined by searching, not by reading every file",
  prompt: "In which file, and on which line, is the function computeChecksum defined? " +
    "Answer in the form path:line.",
  files: {
    "src/util/hash.ts": [
      "// Small hashing helpers shared by the upload and download paths.",
      "",
      "const OFFSET = 2166136261;",
      "const PRIME = 16777619;",
      "",
      "/** FNV-1a over bytes. */",
      "export function fnv1a(data: Uint8Array): number {",
      "  let hash = OFFSET;",
      "  for (const byte of data) hash = Math.imul(hash ^ byte, PRIME);",
      "  return hash >>> 0;",
      "}",
      "",
      "/** The checksum stored beside every uploaded blob. */",
      "export function computeChecksum(data: Uint8Array): number {",
      "  return fnv1a(data) ^ data.length;",
      "}",
      "",
    ].join("\n"),
    "src/api/upload.ts": [
      'import { computeChecksum } from "../util/hash.ts";',
      "",
      "export function upload(data: Uint8Array) {",
      "  const checksum = computeChecksum(data);",
      "  return { size: data.length, checksum };",
      "}",
      "",
    ].join("\n"),
    "src/api/download.ts": [
      'import { computeChecksum } from "../util/hash.ts";',
      "",
      "export function verify(data: Uint8Array, expected: number): boolean {",
      "  return computeChecksum(data) === expected;",
      "}",
      "",
    ].join("\n"),
    "src/legacy/checksum_v1.ts": [
      "// computeChecksum moved to src/util/hash.ts; this is the old version for old blobs.",
      "export function computeChecksumV1(data: Uint8Array): number {",
      "  return data.reduce((sum, byte) => (sum + byte) % 65521, 1);",
      "}",
      "",
    ].join("\n"),
    "test/hash.test.ts": [
      'import { computeChecksum } from "../src/util/hash.ts";',
      "",
      'Deno.test("checksum of nothing", () => {',
      "  if (computeChecksum(new Uint8Array()) !== 2166136261) throw new Error();",
      "});",
      "",
    ].join("\n"),
  },
  expected: ["grep"],
  verify: {
    must_include: ["grep"],
    max_calls: 3,
    args: [{ tool: "grep", match: { pattern: { regex: "computeChecksum" } } }],
    answer: { regex: "src/util/hash\\.ts:14\\b" },
  },
};

let serviceLogFiles: Record<string, string> | undefined;

/** page-large-file: one line deep inside a file bigger than one read, reached by paging. */
const pageLargeFile: EvalFixtureDef = {
  id: "page-large-file",
  description: "Read one line deep inside a 300 KB log by paging with an offset",
  prompt:
    `logs/service.log is a long log file. Which request id (req-...) is logged on line ${LOG_LINE} ` +
    "of it? Reply with the id.",
  // Built when a trial reads it: generating 300 KB cost every svc start about 6 ms.
  get files() {
    return (serviceLogFiles ??= { "logs/service.log": serviceLog() });
  },
  expected: ["file_read"],
  verify: {
    must_include: ["file_read"],
    max_calls: 4,
    args: [{
      tool: "file_read",
      match: { path: { path: "logs/service.log" }, offset: { min: 2, max: LOG_LINE } },
    }],
    answer: {
      contains: [logRequestId(LOG_LINE)],
      absent: [logRequestId(LOG_LINE - 1), logRequestId(LOG_LINE + 1)],
    },
  },
};

/** Every bundled fixture, in the order `svc eval list` shows them (sorted by id). */
export const fixtures: readonly EvalFixtureDef[] = [
  findThenRead,
  grepSymbol,
  listDirectory,
  pageLargeFile,
  readFileLines,
];
