import assert from "node:assert/strict";
import {
  endpoint,
  formatWait,
  parseRetryAfter,
  redact,
  shortBody,
} from "../../src/provider/http_util.ts";

Deno.test("parseRetryAfter reads seconds and HTTP dates, uncapped, and formatWait words them", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const cases: Array<[string | null, number | null]> = [
    [null, null],
    ["", null],
    ["3", 3],
    ["0.5", 0.5],
    ["3600", 3600],
    ["Thu, 01 Jan 2026 00:00:04 GMT", 4],
    ["Wed, 31 Dec 2025 23:00:00 GMT", 0],
    ["soon", null],
  ];
  assert.deepEqual(cases.map(([v]) => [v, parseRetryAfter(v, now)]), cases);
  assert.deepEqual(
    [0.2, 45, 60, 725, 3600, 5400, 86400, 97200].map(formatWait),
    ["1s", "45s", "1m", "12m 5s", "1h", "1h 30m", "1d", "1d 3h"],
  );
});

Deno.test("shortBody, redact and endpoint shape error text and URLs", () => {
  assert.deepEqual(
    [
      shortBody('{"error":{"message":"bad  key\\n here"}}'),
      shortBody('{"detail":"nope"}'),
      shortBody("<html>\n  Gateway   Timeout</html>"),
      shortBody("x".repeat(300)).length,
      redact("key sk-123456 and sk-123456 again", "sk-123456"),
      redact("nothing", ""),
      endpoint("http://h:1/", "models"),
      endpoint("http://h:1/v1", "chat/completions"),
    ],
    [
      "bad key here",
      "nope",
      "Gateway Timeout",
      200,
      "key *** and *** again",
      "nothing",
      "http://h:1/v1/models",
      "http://h:1/v1/chat/completions",
    ],
  );
});
