/** The `sandboxed` bash level end to end: `svc run` as a person runs it, with a scripted model. */
import assert from "node:assert/strict";
import { svc } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { networkEnv } from "../../src/tool/network_env.ts";
import { SANDBOX } from "./_box.ts";

/** HOME and worktree under /var/tmp (the sandbox's private /tmp would hide a HOME under /tmp). */
async function homeAndWorktree(config: unknown) {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "svc-sandboxed-" }),
  );
  const home = `${root}/home`, worktree = `${root}/wt`;
  await Deno.mkdir(`${home}/.config/svc`, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(`${home}/.config/svc/config.json`, JSON.stringify(config));
  await Deno.writeTextFile(`${home}/diary.txt`, "mine\n");
  await Deno.mkdir(worktree);
  await Deno.writeTextFile(`${worktree}/a.txt`, "a\n");
  return {
    home,
    worktree,
    env: { HOME: home, NO_COLOR: "1", ...networkEnv() },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

const SANDBOXED = {
  tool_permission: { bash: "sandboxed", bash_allow: ["grep", "echo", "printf"] },
};

Deno.test({
  name: "bash sandboxed runs an unlisted ls without asking, and rm -rf of the home harms nothing",
  ignore: !SANDBOX.ok,
  fn: async () => {
    await using box = await homeAndWorktree(SANDBOXED);
    const fake = await startFakeProvider([
      { tool_calls: [{ name: "run_command", arguments: { command: "ls" } }] },
      { tool_calls: [{ name: "run_command", arguments: { command: `rm -rf ${box.home}` } }] },
      { text: "done" },
    ]);
    try {
      // No --yes: a call that asked would be denied (no one to answer in svc run).
      const out = await svc(
        ["run", "--base-url", fake.url, "--model", "m", "--output", "json", "-p", "go"],
        { cwd: box.worktree, env: { ...box.env, PATH: Deno.env.get("PATH") ?? "" } },
      );
      assert.equal(out.code, 0, out.stderr);
      const results = fake.requests.slice(1).map((r) => r.body.messages.at(-1).content);
      assert.equal(results[0], "exit code 0\nstdout:\na.txt");
      assert.match(results[1], /^exit code 1\nstderr:\nrm: cannot remove .*Read-only file system/);
      assert.equal(await Deno.readTextFile(`${box.home}/diary.txt`), "mine\n");
      const sessions = `${box.worktree}/.svc/sessions`;
      const [file] = (await Array.fromAsync(Deno.readDir(sessions))).filter((e) =>
        e.name.endsWith(".json")
      );
      const session = JSON.parse(await Deno.readTextFile(`${sessions}/${file.name}`));
      assert.deepEqual(
        session.permissions.map((p: Record<string, string>) => [p.action, p.outcome, p.reason]),
        [
          ["allow", "allowed", "bash category is sandboxed"],
          ["allow", "allowed", "bash category is sandboxed"],
        ],
      );
    } finally {
      await fake.close();
    }
  },
});

Deno.test("bash sandboxed asks where no sandbox can run, so a headless run denies the command", async () => {
  await using box = await homeAndWorktree(SANDBOXED);
  const bin = `${box.home}/bin`;
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    `${bin}/bwrap`,
    "#!/bin/sh\necho 'bwrap: Operation not permitted' >&2\nexit 1\n",
  );
  await Deno.chmod(`${bin}/bwrap`, 0o755);
  const fake = await startFakeProvider([
    { tool_calls: [{ name: "run_command", arguments: { command: "echo hi > ran" } }] },
    { text: "done" },
  ]);
  try {
    const out = await svc(
      ["run", "--base-url", fake.url, "--model", "m", "--output", "json", "-p", "go"],
      { cwd: box.worktree, env: { ...box.env, PATH: `${bin}:${Deno.env.get("PATH") ?? ""}` } },
    );
    assert.equal(out.code, 0, out.stderr);
    assert.equal(await Deno.stat(`${box.worktree}/ran`).catch(() => null), null);
    const sessions = `${box.worktree}/.svc/sessions`;
    const [file] = (await Array.fromAsync(Deno.readDir(sessions))).filter((e) =>
      e.name.endsWith(".json")
    );
    const session = JSON.parse(await Deno.readTextFile(`${sessions}/${file.name}`));
    assert.deepEqual(
      session.permissions.map((p: Record<string, string>) => [p.action, p.outcome, p.reason]),
      [[
        "ask",
        "denied",
        "bash category is sandboxed, but no OS sandbox holds the command (bubblewrap cannot " +
        "make its namespaces here: bwrap: Operation not permitted)",
      ]],
    );
  } finally {
    await fake.close();
  }
});
