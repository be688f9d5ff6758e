/**
 * The provider of turns.ts, in its own process: every request gets the same streamed text answer,
 * `Deno.args[0]` characters in chunks of `Deno.args[1]`. Prints its URL; keeps no request bodies.
 */
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";

const size = Number(Deno.args[0] ?? 4);
const chunkSize = Number(Deno.args[1] ?? 1000);
const line = "x".repeat(49) + "\n";
const text = size <= 50 ? "Done".slice(0, size) : line.repeat(Math.ceil(size / 50)).slice(0, size);
const fake = await startFakeProvider(() => {
  fake.requests.length = 0;
  return { text, chunkSize };
});
console.log(fake.url);
