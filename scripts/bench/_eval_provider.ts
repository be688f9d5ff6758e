/**
 * The instant provider of eval.ts, in its own process so svc's time is measured alone: the
 * scripted perfect agent of the bundled fixtures, whole replies in one chunk. Prints its URL on
 * stdout and keeps no request bodies.
 */
import type { Reply } from "../../tests/_support/fake_provider.ts";
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";
import { perfectAgent } from "../../tests/_support/eval_agents.ts";

const fake = await startFakeProvider((body, index): Reply => {
  fake.requests.length = 0;
  return { ...perfectAgent(body, index), chunkSize: 100_000 } as Reply;
});
console.log(fake.url);
