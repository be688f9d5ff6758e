import assert from "node:assert/strict";
import { allocatePort, isPortFree, PortsExhaustedError } from "../../src/fleet/ports.ts";

/** Whether `port` becomes free within a second: a closed listener's socket may linger briefly. */
async function freedSoon(port: number): Promise<boolean> {
  for (let i = 0; i < 50 && !isPortFree(port); i++) await new Promise((r) => setTimeout(r, 20));
  return isPortFree(port);
}

Deno.test("port allocation takes prefer_port first, skips ports other agents hold and ports something listens on", async () => {
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 28900 });
  try {
    assert.equal(isPortFree(28900), false);
    assert.equal(
      allocatePort({ first: 28900, last: 28905 }, { prefer: [28904], taken: new Set() }),
      28904,
    );
    assert.equal(
      allocatePort({ first: 28900, last: 28905 }, { prefer: [], taken: new Set([28901]) }),
      28902,
    );
    // A preferred port that is taken falls back to the range.
    assert.equal(
      allocatePort({ first: 28900, last: 28905 }, { prefer: [28900, undefined], taken: new Set() }),
      28901,
    );
  } finally {
    busy.close();
  }
  assert.equal(await freedSoon(28900), true);
});

Deno.test("an exhausted port range is an error that says what to do", () => {
  const busy = [28910, 28911].map((port) => Deno.listen({ hostname: "127.0.0.1", port }));
  try {
    assert.throws(
      () => allocatePort({ first: 28910, last: 28911 }, { prefer: [28911], taken: new Set() }),
      (err: Error) => {
        assert.ok(err instanceof PortsExhaustedError);
        assert.equal(
          err.message,
          "no free port in 28910-28911 (nor the preferred 28911): every one is in use; stop what " +
            "holds them, give the agent a free prefer_port (svc fleet add --port), or set " +
            "SVC_FLEET_PORT_RANGE to a wider range",
        );
        return true;
      },
    );
  } finally {
    for (const listener of busy) listener.close();
  }
});
