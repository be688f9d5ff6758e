/**
 * Enforces two shape rules of Deno's style guide over src/, main.ts and the plugins (their tests
 * aside): an exported function takes at most two positional parameters, then an options object;
 * a function spans at most 80 lines unless a `// One piece: <why>` comment says why it must not be
 * split. The rules are the `deno lint` plugin scripts/signature_rules.ts, run with a config of
 * their own so that no other lint rule takes part.
 */
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const RULES = new URL("./signature_rules.ts", import.meta.url).href;

/** The code files the rules cover under `root`: src/, main.ts, plugins/ outside their tests/. */
async function covered(root: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(join(root, dir))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory && !["node_modules", "tests"].includes(entry.name)) await walk(path);
      else if (entry.isFile && /\.tsx?$/.test(entry.name)) files.push(path);
    }
  };
  for (const dir of ["src", "plugins"]) await walk(dir).catch(ignoreNotFound);
  if (await Deno.stat(join(root, "main.ts")).catch(() => null)) files.push("main.ts");
  return files.sort();
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof Deno.errors.NotFound)) throw err;
}

interface Diagnostic {
  filename: string;
  range: { start: { line: number } };
  message: string;
}

/** Every problem in the tree at `root` as `path:line: message`, sorted; empty when all is well. */
export async function checkSignatures(root: string): Promise<string[]> {
  const files = await covered(root);
  if (!files.length) return [];
  const dir = await Deno.makeTempDir({ prefix: "svc_signatures_" });
  try {
    const config = join(dir, "deno.json");
    await Deno.writeTextFile(
      config,
      JSON.stringify({ lint: { plugins: [RULES], rules: { tags: [] } } }),
    );
    const { stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["lint", "--config", config, "--json", ...files],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const report = JSON.parse(new TextDecoder().decode(stdout) || "null");
    if (!report) throw new Error(`Could not run deno lint: ${new TextDecoder().decode(stderr)}`);
    if (report.errors.length) {
      throw new Error(`deno lint could not parse: ${JSON.stringify(report.errors)}`);
    }
    return (report.diagnostics as Diagnostic[]).map((d) =>
      `${relative(root, fileURLToPath(d.filename))}:${d.range.start.line}: ${d.message}`
    ).sort(byPathAndLine);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function byPathAndLine(a: string, b: string): number {
  const [pathA, lineA] = a.split(":");
  const [pathB, lineB] = b.split(":");
  return pathA === pathB ? Number(lineA) - Number(lineB) : pathA < pathB ? -1 : 1;
}

if (import.meta.main) {
  const problems = await checkSignatures(fileURLToPath(new URL("..", import.meta.url)));
  if (problems.length) {
    console.error(`${problems.join("\n")}\n${problems.length} signature problems`);
    Deno.exit(1);
  }
  console.log("signatures ok");
}
