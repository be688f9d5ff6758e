/**
 * The eval fixture: its JSON shape (zod), and validation whose errors name the file and the
 * field. SPEC fixes `id`, the verifier keys `exact`, `must_include`, `avoid`, `max_calls`,
 * `min_calls` and `args`; svc names the rest (`prompt`, `files`, `expected`, `verify`, and inside
 * `verify` the outcome checks `answer` and `files`, plus `description` and `permissions`).
 */
import { isAbsolute, normalize } from "../util/posix_path.ts";
import * as z from "zod";

/** A fixture that cannot be used; the message names where it came from and the field. */
export class FixtureError extends Error {
  override name = "FixtureError";
}

/** Why `path` cannot name a file of the trial worktree, or undefined when it can. */
export function unsafeRelativePath(path: string): string | undefined {
  if (path === "") return "is empty";
  if (path.includes("\0")) return "contains a NUL character";
  if (path.includes("\\")) return "contains a backslash; use / between folders";
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path)) {
    return "is absolute; give a path relative to the trial worktree";
  }
  if (path.split("/").some((part) => part === "..")) {
    return "contains a .. segment; files stay inside the trial worktree";
  }
  if (normalize(path) === "." || path.endsWith("/")) return "names a folder, not a file";
  if (path.length > 1024) return "is longer than 1024 characters";
  return undefined;
}

const relativePath = z.string().superRefine((path, ctx) => {
  const problem = unsafeRelativePath(path);
  if (problem) ctx.addIssue({ code: "custom", message: `path ${JSON.stringify(path)} ${problem}` });
});

const toolName = z.string().regex(
  /^[A-Za-z0-9_.-]{1,64}$/,
  "a tool name is 1-64 letters, digits, _ . or -",
);

/** How one argument of a call is matched. */
const Matcher = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.strictObject({ path: z.string().min(1) }),
  z.strictObject({ regex: z.string() }),
  z.strictObject({ min: z.number().optional(), max: z.number().optional() }),
], {
  error:
    'a matcher is a string, number or boolean (equal), {"path": p} (the same file), {"regex": r} ' +
    'or {"min": a, "max": b}',
});
export type Matcher = z.infer<typeof Matcher>;

const ArgCheck = z.strictObject({
  tool: toolName,
  match: z.record(z.string().min(1), Matcher),
});
export type ArgCheck = z.infer<typeof ArgCheck>;

const FileCheck = z.strictObject({
  exists: z.boolean().optional(),
  equals: z.string().optional(),
  contains: z.array(z.string()).optional(),
});
export type FileCheck = z.infer<typeof FileCheck>;

const Verify = z.strictObject({
  /** The tool-name trace must equal `expected`, call for call. */
  exact: z.boolean().optional(),
  must_include: z.array(toolName).optional(),
  avoid: z.array(toolName).optional(),
  max_calls: z.int().min(0).optional(),
  min_calls: z.int().min(0).optional(),
  /** Each check passes when at least one call of `tool` matches every key of `match`. */
  args: z.array(ArgCheck).optional(),
  /** The final answer: substrings (ignoring case), a regex (ignoring case), forbidden substrings. */
  answer: z.strictObject({
    contains: z.array(z.string()).optional(),
    regex: z.string().optional(),
    absent: z.array(z.string()).optional(),
  }).optional(),
  /** The trial worktree when the turn ended, file by file. */
  files: z.record(relativePath, FileCheck).optional(),
});
export type Verify = z.infer<typeof Verify>;

const permission = z.enum(["allow", "deny"]);

/** The JSON shape of a fixture. */
export const FixtureSchema = z.strictObject({
  id: z.string().regex(
    /^[a-z0-9][a-z0-9._-]{0,63}$/,
    "an id is 1-64 lowercase letters, digits, . _ or -, starting with a letter or digit",
  ),
  description: z.string().optional(),
  prompt: z.string().trim().min(1, "the prompt is empty"),
  /** Relative path to content, written into the trial's temporary worktree. */
  files: z.record(relativePath, z.string()).default({}),
  /** The tool-name trace a good run makes. */
  expected: z.array(toolName).optional(),
  /**
   * Categories this fixture changes from the eval defaults (read, list, web allow; edit deny).
   * bash and mcp stay denied: a fixture never runs commands on the machine.
   */
  permissions: z.strictObject({
    read: permission.optional(),
    list: permission.optional(),
    edit: permission.optional(),
    web: permission.optional(),
  }).default({}),
  verify: Verify,
}).superRefine((fixture, ctx) => {
  const problem = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: "custom", path, message });
  const v = fixture.verify;
  const checks = ["exact", "must_include", "avoid", "max_calls", "min_calls", "args", "answer"]
    .filter((key) => v[key as keyof Verify] !== undefined);
  if (checks.length === 0 && v.files === undefined) {
    problem(["verify"], "give at least one check, or every run passes");
  }
  if (v.exact && fixture.expected === undefined) {
    problem(["verify", "exact"], 'needs "expected", the trace to compare with');
  }
  if (v.min_calls !== undefined && v.max_calls !== undefined && v.min_calls > v.max_calls) {
    problem(["verify", "min_calls"], `is more than max_calls (${v.max_calls})`);
  }
  if (v.answer?.regex !== undefined) checkRegex(v.answer.regex, ["verify", "answer", "regex"]);
  v.args?.forEach((check, i) => {
    for (const [key, matcher] of Object.entries(check.match)) {
      const at = ["verify", "args", i, "match", key];
      if (typeof matcher !== "object") continue;
      if ("regex" in matcher) checkRegex(matcher.regex, at);
      else if ("min" in matcher || "max" in matcher) {
        const { min, max } = matcher as { min?: number; max?: number };
        if (min === undefined && max === undefined) problem(at, "give min, max or both");
        if (min !== undefined && max !== undefined && min > max) problem(at, "min is above max");
      }
    }
  });
  const paths = Object.keys(fixture.files).map((p) => normalize(p));
  const set = new Set(paths);
  for (const path of paths) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      if (set.has(folder)) problem(["files", path], `needs ${folder} to be a folder, not a file`);
    }
  }
  if (set.size !== paths.length) problem(["files"], "two paths name the same file");

  function checkRegex(source: string, path: (string | number)[]) {
    try {
      new RegExp(source, "i");
    } catch (err) {
      problem(path, `invalid regex: ${(err as Error).message}`);
    }
  }
});

/** A validated fixture, every default applied. */
export type Fixture = z.infer<typeof FixtureSchema>;

/**
 * Validates one fixture; `where` names its source (`/path/to/file.json`, `plugin fixture "x"`).
 * Throws a FixtureError naming `where` and the first failing field.
 */
export function parseFixture(raw: unknown, where: string): Fixture {
  const checked = FixtureSchema.safeParse(raw);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  // A record key that fails its own check (a file path) is reported with that check's message.
  const message = issue.code === "invalid_key"
    ? issue.issues[0]?.message ?? issue.message
    : issue.message;
  const field = issue.path.length ? `field ${fieldName(issue.path)}: ` : "";
  throw new FixtureError(`Invalid fixture in ${where}: ${field}${message}`);
}

/** `verify.args.0.match`, with keys that are not plain words quoted: `files["a/b.txt"]`. */
function fieldName(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `.${part}`;
    else if (typeof part === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) {
      out += out ? `.${part}` : part;
    } else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}
