import assert from "node:assert/strict";
import { outputStatus } from "../../src/tool/output_status.ts";

Deno.test("a command that ends within a second reports none of its output lines as status", async () => {
  const seen: string[] = [];
  const lines = outputStatus((line) => seen.push(line));
  lines.push(new TextEncoder().encode("one\ntwo\npart"));
  await new Promise((r) => setTimeout(r, 50));
  lines.stop();
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(seen, []);
});
