/**
 * `svc sandbox status` and `svc sandbox run` as a user runs them: the status of a worktree
 * (creating nothing in it), and one command in the sandbox, which shows what it may and may not
 * read. The HOME of these tests lies inside the worktree, so a secret is hidden by the sandbox's
 * rule for it, not merely by the private /tmp of bubblewrap (where temp folders live).
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { needs } from "../_support/tools.ts";

const SECRET = "sk-test-do-not-show-1234";

/** A worktree whose HOME (inside it) holds ~/.config/svc/providers.json with a key. */
async function withSecret() {
  const box = await sandbox({ "notes.txt": "visible notes\n" });
  const home = `${box.worktree}/home`;
  await Deno.mkdir(`${home}/.config/svc`, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(
    `${home}/.config/svc/providers.json`,
    JSON.stringify({ openai: { api_key: SECRET } }),
    { mode: 0o600 },
  );
  return Object.assign(box, { env: { ...box.env, HOME: home }, home });
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("sandbox status prints the sandbox, the mode, the paths, the network and the limits, creating nothing", async () => {
  await using box = await sandbox();
  const out = await svc(["sandbox", "status"], { cwd: box.worktree, env: box.env });
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, new RegExp(`^worktree: ${box.worktree}$`, "m"));
  assert.match(
    out.stdout,
    /^sandbox: (bubblewrap|seatbelt) \(|^sandbox: none: .*\n {2}to fix it, /m,
  );
  assert.match(out.stdout, /^mode: workspace-write \(the default: sandbox\.mode is not set\)$/m);
  assert.match(out.stdout, /^network: /m);
  assert.match(out.stdout, /^ {2}memory 4 GiB per process$/m);
  assert.match(out.stdout, /^ {2}CPU time the command's timeout per process$/m);
  assert.equal(await exists(`${box.worktree}/.svc`), false, "status created .svc/");
});

Deno.test(
  "sandbox status --json lists the worktree writable, its control folders read-only and svc's keys hidden (needs bwrap)",
  needs("bwrap"),
  async () => {
    await using box = await withSecret();
    await Deno.mkdir(`${box.worktree}/.git`);
    const out = await svc(["sandbox", "status", "--json"], { cwd: box.worktree, env: box.env });
    assert.equal(out.code, 0, out.stderr);
    const status = JSON.parse(out.stdout);
    assert.equal(status.worktree, box.worktree);
    if (!status.sandbox.available) {
      // bwrap on PATH but unable to make its namespaces here: commands are refused, and said why.
      assert.deepEqual([status.commands, status.writable], ["refused", null]);
      return;
    }
    assert.deepEqual([status.sandbox.kind, status.mode, status.commands], [
      "bubblewrap",
      "workspace-write",
      "sandboxed",
    ]);
    assert.deepEqual(status.writable, [box.worktree]);
    assert.ok(status.readOnly.includes(`${box.worktree}/.svc`), status.readOnly);
    assert.ok(status.readOnly.includes(`${box.worktree}/.git/hooks`), status.readOnly);
    assert.deepEqual(status.hidden, [`${box.home}/.config/svc`, "/run"]);
    assert.equal(status.network.rule, "none: the command has no network");
    assert.equal(status.limits.processes, 512);
    assert.equal(status.limits.cpuSeconds, null);
    for (const made of [".svc", ".git/hooks"]) {
      assert.equal(await exists(`${box.worktree}/${made}`), false, `status created ${made}`);
    }
  },
);

Deno.test(
  "sandbox run -- echo hi prints hi as run_command renders it and exits with the command's code (needs bwrap)",
  needs("bwrap"),
  async () => {
    await using box = await sandbox();
    const hi = await svc(["sandbox", "run", "--", "echo", "hi"], {
      cwd: box.worktree,
      env: box.env,
    });
    assert.equal(hi.code, 0, hi.stderr);
    assert.equal(hi.stdout, "exit code 0\nstdout:\nhi\n");
    const seven = await svc(["sandbox", "run", "--", "exit 7"], {
      cwd: box.worktree,
      env: box.env,
    });
    assert.equal(seven.code, 7, seven.stderr);
    assert.match(seven.stdout, /^exit code 7$/m);
  },
);

Deno.test(
  "sandbox run cannot read ~/.config/svc/providers.json, while a file beside it in the worktree reads (needs bwrap)",
  needs("bwrap"),
  async () => {
    await using box = await withSecret();
    const env = box.env;
    const secret = await svc(["sandbox", "run", "--", "cat", "$HOME/.config/svc/providers.json"], {
      cwd: box.worktree,
      env,
    });
    assert.notEqual(secret.code, 0, secret.stdout);
    assert.ok(!`${secret.stdout}${secret.stderr}`.includes(SECRET), secret.stdout);
    const notes = await svc(["sandbox", "run", "--", "cat", "notes.txt"], {
      cwd: box.worktree,
      env,
    });
    assert.equal(notes.code, 0, notes.stderr);
    assert.match(notes.stdout, /^visible notes$/m);
  },
);

Deno.test("sandbox run with no command is a usage error that shows how to give one", async () => {
  await using box = await sandbox();
  for (const args of [["sandbox", "run"], ["sandbox", "run", "--"]]) {
    const out = await svc(args, { cwd: box.worktree, env: box.env });
    assert.deepEqual([out.code, out.stdout], [2, ""], out.stderr);
    assert.match(out.stderr, /no command: give one after --, as in svc sandbox run -- ls -la/);
  }
});

Deno.test("sandbox status and sandbox run answer --help with their usage", async () => {
  await using box = await sandbox();
  for (const sub of ["status", "run"]) {
    const out = await svc(["sandbox", sub, "--help"], { cwd: box.worktree, env: box.env });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, new RegExp(`^Usage: svc sandbox ${sub} \\[options\\]`));
  }
});
