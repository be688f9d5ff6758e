import assert from "node:assert/strict";
import { lazyEndpoint } from "../../src/http/lazy_endpoint.ts";
import type { HttpEndpoint } from "../../src/plugin/api.ts";

/** An endpoint factory that counts its builds and closes, answering with the request's path. */
function counted() {
  const counts = { built: 0, closed: 0 };
  const make = (): Promise<HttpEndpoint> => {
    counts.built++;
    return Promise.resolve({
      fetch: (request) => Promise.resolve(new Response(new URL(request.url).pathname)),
      close: () => {
        counts.closed++;
        return Promise.resolve();
      },
    });
  };
  return { counts, make };
}

Deno.test("a lazy endpoint is built once, on its first requests, and closed only when built", async () => {
  const used = counted();
  const endpoint = lazyEndpoint(used.make);
  assert.deepEqual(used.counts, { built: 0, closed: 0 });
  const answers = await Promise.all(
    ["/a", "/b"].map(async (path) =>
      await (await endpoint.fetch(new Request(`http://x${path}`))).text()
    ),
  );
  assert.deepEqual(answers, ["/a", "/b"]);
  await endpoint.close!();
  assert.deepEqual(used.counts, { built: 1, closed: 1 });
  const idle = counted();
  await lazyEndpoint(idle.make).close!();
  assert.deepEqual(idle.counts, { built: 0, closed: 0 });
});
