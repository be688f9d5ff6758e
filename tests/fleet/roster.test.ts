import assert from "node:assert/strict";
import { join } from "node:path";
import {
  agentLogPath,
  loadRoster,
  parseRoster,
  rosterDir,
  updateRoster,
} from "../../src/fleet/roster.ts";

Deno.test("a roster entry gets SPEC's defaults: enabled, max_restarts 10, no prefer_port or command", () => {
  assert.deepEqual(parseRoster({ agents: [{ name: "a", dir: "a" }] }, "fleet.json"), {
    agents: [{ name: "a", dir: "a", enabled: true, max_restarts: 10 }],
  });
  assert.deepEqual(parseRoster(undefined, "fleet.json"), { agents: [] });
});

Deno.test("an invalid roster names its path and every problem", () => {
  assert.throws(
    () =>
      parseRoster({
        agents: [
          { name: "../x", dir: "a" },
          { name: "b", dir: "b", max_restarts: -1, color: "red" },
        ],
      }, "/r/.svc/fleet.json"),
    /^RosterError: \/r\/\.svc\/fleet\.json is not a valid roster: agents\.0\.name: must be 1-64 letters, digits, _, \. or -, starting with a letter or digit; agents\.1\.max_restarts: .*; agents\.1: Unrecognized key: "color"$/,
  );
});

Deno.test("updating the roster writes only what the operator chose and leaves a corrupt file alone", async () => {
  const root = await Deno.makeTempDir();
  try {
    await updateRoster(root, (roster) => {
      roster.agents.push({ name: "a", dir: "a", enabled: true, max_restarts: 10 });
      roster.agents.push({
        name: "b",
        dir: "/srv/b",
        enabled: false,
        max_restarts: 0,
        prefer_port: 8800,
        command: ["sh", "-c", "true"],
      });
    });
    const path = join(root, ".svc", "fleet.json");
    assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), {
      agents: [
        { name: "a", dir: "a", enabled: true },
        {
          name: "b",
          dir: "/srv/b",
          enabled: false,
          prefer_port: 8800,
          max_restarts: 0,
          command: ["sh", "-c", "true"],
        },
      ],
    });
    assert.equal((await loadRoster(root)).agents.length, 2);
    await Deno.writeTextFile(path, "{not json");
    await assert.rejects(
      () => updateRoster(root, () => {}),
      /is not valid JSON.*fix or remove it first/,
    );
    assert.equal(await Deno.readTextFile(path), "{not json");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("agent folders inside the root are recorded relative to it, others absolute; logs live in the agent folder", () => {
  assert.equal(rosterDir("/fleet", "/fleet/a"), "a");
  assert.equal(rosterDir("/fleet", "/elsewhere/b"), "/elsewhere/b");
  assert.equal(rosterDir("/fleet", "/fleet"), "/fleet");
  assert.equal(agentLogPath("/fleet", { name: "a", dir: "a" }), "/fleet/a/.svc/logs/a.log");
});
