/**
 * Benchmark: what the OS sandbox adds to a command and to a confined write.
 * `deno task bench sandbox`, or `deno run -A scripts/bench/sandbox.ts [--runs N]`.
 * The calibration line is `bash -c true` started directly; each row after it is run_command's
 * own path (`runShell`): without a sandbox, in bubblewrap, and in bubblewrap with the domain
 * proxy; then a file_write's confined write by path check and inside bubblewrap.
 */
import { parseArgs } from "node:util";
import { ConfigSchema } from "../../src/config/schema.ts";
import { sandboxSettings } from "../../src/sandbox/settings.ts";
import { sandboxKind } from "../../src/sandbox/probe.ts";
import { writeInSandbox } from "../../src/sandbox/confined_write.ts";
import { runShell } from "../../src/tool/shell.ts";
import { writeFileAtomic } from "../../src/util/atomic.ts";
import { report } from "./_util.ts";

const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
const runs = Number(values.runs ?? 30);

async function sample(fn: () => Promise<unknown>): Promise<number[]> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times;
}

const worktree = await Deno.realPath(
  await Deno.makeTempDir({ dir: "/var/tmp", prefix: "svc-bench-sb-" }),
);
try {
  report(
    "calibration: bash -c true, started directly",
    await sample(() => new Deno.Command("bash", { args: ["-c", "true"] }).output()),
  );
  const kind = await sandboxKind();
  const settings = (config: Record<string, unknown>) =>
    sandboxSettings(ConfigSchema.parse(config), worktree);
  const shell = (config: Record<string, unknown>) => () =>
    runShell("true", { cwd: worktree, worktree, sandbox: settings(config) });
  report(
    "run_command true, no sandbox (limits only)",
    await sample(shell({ "sandbox.mode": "danger-full-access" })),
  );
  if (!kind.ok) {
    console.log(`no sandbox rows: ${kind.reason}`);
  } else {
    report("run_command true, in bubblewrap", await sample(shell({})));
    report(
      "run_command true, bubblewrap + domain proxy",
      await sample(shell({ "sandbox.network.allowedDomains": ["example.test"] })),
    );
  }
  const data = "x".repeat(4096);
  report(
    "confined write 4 KiB, path check",
    await sample(() => writeFileAtomic(`${worktree}/f.txt`, data, { confineTo: worktree })),
  );
  if (kind.ok && kind.kind === "bubblewrap") {
    report(
      "confined write 4 KiB, inside bubblewrap",
      await sample(() =>
        writeInSandbox(`${worktree}/f.txt`, data, { root: worktree, program: kind.program })
      ),
    );
  }
} finally {
  await Deno.remove(worktree, { recursive: true });
}
