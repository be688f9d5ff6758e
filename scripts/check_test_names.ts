/**
 * Enforces one test-file naming convention: tests are `*.test.ts`. Fails, naming the files, when a
 * file under tests/ or plugins/<name>/tests/ ends in `_test.ts` (`deno test` would run it too).
 * Helpers (`_context.ts`, fixtures, local servers) are fine: only the suffix is refused.
 */
import { join, relative } from "node:path";

const root = new URL("../", import.meta.url).pathname;

async function* files(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== "node_modules") yield* files(path);
    else if (entry.isFile) yield path;
  }
}

const roots = [join(root, "tests")];
for await (const plugin of Deno.readDir(join(root, "plugins"))) {
  if (plugin.isDirectory) roots.push(join(root, "plugins", plugin.name, "tests"));
}

const wrong: string[] = [];
for (const dir of roots) {
  try {
    for await (const file of files(dir)) {
      if (file.endsWith("_test.ts")) wrong.push(relative(root, file));
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

if (wrong.length) {
  console.error(`Test files must be named *.test.ts, not *_test.ts:\n${wrong.sort().join("\n")}`);
  Deno.exit(1);
}
console.log("test file names ok");
