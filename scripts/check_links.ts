/**
 * Checks the relative links of README.md and every Markdown file under docs/: the file a link
 * names must exist, and a `#fragment` must be a heading of the target (GitHub's heading ids).
 * Links in fenced code blocks and code spans are not links; URLs with a scheme are not checked.
 */
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const LINK = /!?\[(?:[^\]`]|`[^`]*`)*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g;

/** Every broken link under `root`, as `file: target (why)`; an empty list means all resolve. */
export async function checkLinks(root: string): Promise<string[]> {
  const files = ["README.md", ...await markdownFiles(root, "docs")];
  const problems: string[] = [];
  for (const file of files) {
    const text = await Deno.readTextFile(join(root, file));
    for (const target of links(text)) {
      const why = await broken(root, file, text, target);
      if (why) problems.push(`${file}: ${target} (${why})`);
    }
  }
  return problems;
}

/** The link targets of a Markdown text, outside code. */
export function links(text: string): string[] {
  return prose(text).flatMap((line) => [...line.matchAll(LINK)].map((match) => match[1]));
}

/** The heading ids GitHub gives a Markdown text, duplicates numbered `-1`, `-2`, ... */
export function headingIds(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(text, { keepCode: true })) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1].toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replaceAll(" ", "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count ? `${base}-${count}` : base);
  }
  return ids;
}

async function broken(
  root: string,
  file: string,
  text: string,
  target: string,
): Promise<string | undefined> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [path, fragment] = target.split("#", 2);
  const full = path ? resolve(root, dirname(file), decodeURIComponent(path)) : join(root, file);
  if (relative(root, full).startsWith("..")) return "leads outside the repository";
  let stat: Deno.FileInfo;
  try {
    stat = await Deno.stat(full);
  } catch {
    return "no such file";
  }
  if (fragment === undefined || !full.endsWith(".md") || !stat.isFile) return undefined;
  const headings = headingIds(path ? await Deno.readTextFile(full) : text);
  return headings.has(fragment) ? undefined : "no such heading";
}

/** The lines outside fenced code blocks; code spans blanked unless `keepCode`. */
function prose(text: string, options: { keepCode?: boolean } = {}): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      continue;
    }
    if (fence) continue;
    lines.push(options.keepCode ? line : line.replace(/`[^`]*`/g, "``"));
  }
  return lines;
}

async function markdownFiles(root: string, dir: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(root, dir))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) found.push(...await markdownFiles(root, path));
      else if (entry.isFile && entry.name.endsWith(".md")) found.push(path);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return found.sort();
}

if (import.meta.main) {
  const problems = await checkLinks(fileURLToPath(new URL("..", import.meta.url)));
  if (problems.length) {
    console.error(`Broken links:\n${problems.join("\n")}`);
    Deno.exit(1);
  }
  console.log("links ok");
}
