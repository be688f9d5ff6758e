/** grep: regex search over files, `file:line: text`, via ripgrep when installed. */
import type { ArgsOf, Zod } from "../../../src/plugin/api.ts";
import type { Tool, ToolContext, ToolOutput } from "../../../src/plugin/api.ts";
import { fail, fsError, resolvePath } from "../../../src/plugin/api.ts";
import { displayPath, GREP_MAX_FILE_BYTES } from "./common.ts";
import {
  type GrepQuery,
  MatchSet,
  searchFile,
  searchInProcess,
  searchRipgrep,
} from "./grep_search.ts";

/** Most matches grep lists before its marker. */
export const GREP_MAX_MATCHES = 100;

const schema = (z: Zod) =>
  z.object({
    pattern: z.string().describe("Regex; prefix (?i) ignores case"),
    path: z.string().optional().describe("default ."),
    glob: z.string().optional().describe("File filter, e.g. *.ts"),
  });

/** The grep tool. */
export const grep: Tool = {
  name: "grep",
  category: "read",
  description:
    "Regex search of file contents: file:line: text, max 100. Skips binary files, files over 1 MB and noise dirs (.git, node_modules...).",
  schema,
  aliases: ["find"],
  pathArgs: ["path"],
  run: (args, ctx) => grepFiles(args as ArgsOf<typeof schema>, ctx),
};

/** Compiles the model's pattern; a leading `(?i)` becomes the ignore-case flag. */
export function compilePattern(pattern: string): GrepQuery | ToolOutput {
  const insensitive = pattern.startsWith("(?i)");
  const source = insensitive ? pattern.slice(4) : pattern;
  try {
    return { source, regex: new RegExp(source, insensitive ? "i" : "") };
  } catch (err) {
    const reason = (err as Error).message.split(": ").pop();
    return fail(
      `Invalid regex ${
        JSON.stringify(pattern)
      }: ${reason}; escape ( [ { . * + ? | \\ with a backslash to match them literally`,
    );
  }
}

async function grepFiles(
  args: ArgsOf<typeof schema>,
  ctx: ToolContext,
): Promise<string | ToolOutput> {
  const query = compilePattern(args.pattern);
  if (!("regex" in query)) return query;
  if (args.glob) query.glob = args.glob.replace(/^(\.\/)+/, "");
  const root = resolvePath(ctx.worktree, args.path ?? ".");
  if (typeof root !== "string") return root;
  const shown = displayPath(ctx.worktree, root);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(root);
  } catch (err) {
    return fsError(err, shown);
  }
  const matches = new MatchSet(GREP_MAX_MATCHES);
  let prefix = shown === "." ? "" : `${shown.replace(/\/$/, "")}/`;
  if (info.isFile) {
    if (info.size > GREP_MAX_FILE_BYTES) {
      return fail(`Skipped ${shown}: larger than 1 MB; read it with file_read offset/limit`);
    }
    prefix = "";
    searchFile(root, { path: shown, regex: query.regex, whole: null, matches });
  } else if (!(await searchRipgrep(root, query, { matches, signal: ctx.signal }))) {
    await searchInProcess(root, query, { matches, signal: ctx.signal });
  }
  if (matches.total === 0) {
    return `No matches for ${args.pattern} in ${shown}${args.glob ? ` (glob ${args.glob})` : ""}`;
  }
  const lines = matches.sorted().map((m) => `${prefix}${m.path}:${m.line}: ${m.text}`);
  if (matches.total > GREP_MAX_MATCHES) {
    lines.push(
      `[... showing ${GREP_MAX_MATCHES} of ${matches.total} matches; narrow the pattern, path or glob]`,
    );
  }
  return lines.join("\n");
}
