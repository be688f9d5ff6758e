/**
 * The `ulimit` fallback of the command limits (where util-linux prlimit is missing: macOS, some
 * Linux systems), run by this machine's bash: the limits land in KiB, a hard limit already lower
 * stays, and on macOS the process limit is left out.
 */
import assert from "node:assert/strict";
import { type AppliedLimits, limitPrefix, ulimitScript } from "../../src/sandbox/limits.ts";
import { needs } from "../_support/tools.ts";

const LIMITS: AppliedLimits = {
  memory: 3 * 2 ** 30,
  processes: 300,
  cpuSeconds: 77,
  fileSize: 5 * 2 ** 20,
  openFiles: 200,
};

/** What `ulimit` reports inside the limited command, by flag. */
async function applied(
  script: string,
  wrap: string[] = [],
): Promise<{ code: number; seen: Record<string, string>; stderr: string }> {
  const flags = ["-d", "-u", "-t", "-f", "-n"];
  const report = flags.map((flag) => `echo ${flag}=$(ulimit -H ${flag})`).join("; ");
  const out = await new Deno.Command(wrap[0] ?? "bash", {
    args: [...wrap.slice(1), ...(wrap.length ? ["bash"] : []), "-c", script, "svc-limits"]
      .concat(["bash", "-c", report]),
    stdin: "null",
    signal: AbortSignal.timeout(10_000),
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const seen = Object.fromEntries(text.trim().split("\n").map((line) => line.split("=")));
  return { code: out.code, seen, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test(
  "the ulimit script sets memory and file size in KiB, CPU seconds, open files and processes (needs bash)",
  needs("bash"),
  async () => {
    const { code, seen, stderr } = await applied(ulimitScript(LIMITS, { os: "linux" }));
    assert.equal(code, 0, stderr);
    assert.deepEqual(seen, {
      "-d": String(3 * 2 ** 20),
      "-u": "300",
      "-t": "77",
      "-f": String(5 * 2 ** 10),
      "-n": "200",
    });
  },
);

Deno.test(
  "on macOS the ulimit script leaves the per-user process limit alone (needs bash)",
  needs("bash"),
  async () => {
    const script = ulimitScript(LIMITS, { os: "darwin" });
    assert.doesNotMatch(script, /-u/);
    const before = (await applied('exec "$@"')).seen["-u"];
    const { code, seen } = await applied(script);
    assert.equal(code, 0);
    assert.equal(seen["-u"], before);
    assert.equal(seen["-n"], "200");
  },
);

Deno.test(
  "a hard limit already below the wanted one stays, and the command still runs (needs prlimit)",
  needs("prlimit", "bash"),
  async () => {
    const prlimit = ["prlimit", "--nofile=100", "--"];
    const { code, seen, stderr } = await applied(ulimitScript(LIMITS, { os: "linux" }), prlimit);
    assert.equal(code, 0, stderr);
    assert.equal(seen["-n"], "100");
    assert.equal(seen["-t"], "77");
  },
);

Deno.test(
  "the ulimit script counts -f in KiB even when the shell starts in posix mode (needs bash)",
  {
    ignore: needs("bash").ignore || Deno.build.os !== "linux",
  },
  async () => {
    // /proc/self/limits says bytes, whatever unit the shell counts in.
    const report = "grep 'Max file size' /proc/self/limits";
    const out = await new Deno.Command("bash", {
      args: ["-c", ulimitScript(LIMITS, { os: "linux" }), "svc-limits", "bash", "-c", report],
      env: { POSIXLY_CORRECT: "1" },
      stdin: "null",
      signal: AbortSignal.timeout(10_000),
    }).output();
    const [soft, hard] = new TextDecoder().decode(out.stdout).trim().split(/\s+/).slice(3, 5);
    assert.deepEqual([soft, hard], [String(5 * 2 ** 20), String(5 * 2 ** 20)]);
  },
);

Deno.test("limitPrefix takes prlimit only on Linux and falls back to bash's ulimit elsewhere", () => {
  const find = (name: string) => `/usr/bin/${name}`;
  assert.equal(limitPrefix(LIMITS, { os: "linux", find })?.[0], "/usr/bin/prlimit");
  const mac = limitPrefix(LIMITS, { os: "darwin", find })!;
  assert.deepEqual([mac[0], mac[1], mac[3]], ["/usr/bin/bash", "-c", "svc-limits"]);
  assert.equal(mac[2], ulimitScript(LIMITS, { os: "darwin" }));
  assert.equal(limitPrefix(LIMITS, { os: "darwin", find: () => null }), undefined);
});
