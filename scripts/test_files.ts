/**
 * Which test files may share a process with others. `deno test --parallel` runs test files as
 * workers of one process, so a file that changes what the whole process shares (the environment,
 * the working folder, the umask) races every file running beside it: a HOME set by one file is
 * the HOME another file's code reads. Such a file, found by those calls in it or in a helper it
 * imports by a relative path, runs in a process of its own (scripts/test.ts).
 */
import { dirname, join, relative } from "node:path";

/** Calls that change state every worker of the process shares. */
const PROCESS_WIDE = /\bDeno\.(?:env\.(?:set|delete)|chdir|umask)\s*\(/;
/** Relative module specifiers of static imports and exports. */
const RELATIVE_IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+["'](\.{1,2}\/[^"']+)["']/g;

/**
 * Suites of their own, left out of `deno task test`: tests/deploy/containers/ builds an image
 * and runs containers (minutes, root, Podman), and runs as `deno task test:deploy`.
 */
const OWN_SUITES = new Set(["tests/deploy/containers"]);

/**
 * The files that take longest (they build and install svc, race thousands of writes or run many
 * svc processes), longest first: `deno test --parallel` starts files in the order given, so these
 * start first and the run does not end waiting on one of them.
 */
const SLOW = [
  "tests/cli/installed_build.test.ts",
  "plugins/svc-core-edit/tests/file_write_race_installed.test.ts",
  "tests/cli/run.test.ts",
  "tests/eval/cli.test.ts",
  "tests/fleet/fleet_e2e.test.ts",
  "plugins/svc-core-mcp/tests/cli.test.ts",
  "tests/cli/npm_wrapper.test.ts",
  "plugins/svc-core-mcp/tests/elicitation_approver.test.ts",
];

/** `files` with the known slow ones first, longest first; the rest keep their order. */
export function slowFirst(files: readonly string[]): string[] {
  const slow = SLOW.filter((file) => files.includes(file));
  return [...slow, ...files.filter((file) => !slow.includes(file))];
}

/** The test files (`*.test.ts`) under `roots`, relative to `base`, sorted. */
export function findTestFiles(base: string, roots: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      if (OWN_SUITES.has(relative(base, path))) continue;
      if (entry.isDirectory && entry.name !== "node_modules" && entry.name !== "fixtures") {
        walk(path);
      } else if (entry.isFile && entry.name.endsWith(".test.ts")) {
        found.push(relative(base, path));
      }
    }
  };
  for (const root of roots) walk(join(base, root));
  return found.sort();
}

/**
 * Whether `file` (or a module it imports by a relative path, outside `src/`: svc's own code
 * never changes these) changes process-wide state. `read` returns a module's text, or null.
 */
export function changesProcessState(
  file: string,
  read: (path: string) => string | null,
): boolean {
  const seen = new Set<string>();
  const visit = (path: string): boolean => {
    if (seen.has(path)) return false;
    seen.add(path);
    const text = read(path);
    if (text === null) return false;
    if (PROCESS_WIDE.test(text)) return true;
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      const target = join(dirname(path), match[1]);
      if (!target.split("/").includes("src") && visit(target)) return true;
    }
    return false;
  };
  return visit(file);
}
