/**
 * Runs svc's own CLI entry (`runCli`, what main.ts runs) once per command path given as JSON in
 * the first argument, each with an unknown flag, in this one process: a line `@@ <i> <code>` on
 * stdout after each, and a line `@@ <i>` on both streams before it, so the caller can split what
 * each printed. Used by usage_errors.test.ts to prove every command's usage error without
 * starting a process per command (the parsing fails before any command runs).
 */
import { runCli } from "../../src/cli/program.ts";

const paths = JSON.parse(Deno.args[0]) as string[][];
const enc = new TextEncoder();
for (const [i, path] of paths.entries()) {
  Deno.stdout.writeSync(enc.encode(`@@ ${i}\n`));
  Deno.stderr.writeSync(enc.encode(`@@ ${i}\n`));
  const code = await runCli([...path, "--frobnicate"]);
  Deno.stdout.writeSync(enc.encode(`@@ ${i} ${code}\n`));
}
