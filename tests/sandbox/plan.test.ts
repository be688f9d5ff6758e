import assert from "node:assert/strict";
import { ConfigSchema } from "../../src/config/schema.ts";
import { sandboxSettings } from "../../src/sandbox/settings.ts";
import { sandboxLayout } from "../../src/sandbox/layout.ts";
import { bwrapArgs } from "../../src/sandbox/bwrap.ts";
import { appliedLimits, limitPrefix } from "../../src/sandbox/limits.ts";
import { attackBox, SANDBOX } from "./_box.ts";

Deno.test("settings expand ~ and relative paths, hide svc's folder and the usual credentials", () => {
  const config = ConfigSchema.parse({
    "sandbox.filesystem.allowWrite": ["~/.cache/deno", "build"],
    "sandbox.filesystem.denyRead": ["/etc/shadow", "~/.ssh"],
    "limits.command": { memory: "512MiB", cpu_seconds: 30 },
  });
  const settings = sandboxSettings(config, "/w/proj", { home: "/home/me" });
  assert.equal(settings.mode, "workspace-write");
  assert.equal(settings.modeChosen, false);
  assert.deepEqual(settings.allowWrite, ["/home/me/.cache/deno", "/w/proj/build"]);
  assert.deepEqual(settings.denyRead.slice(0, 3), [
    "/home/me/.config/svc",
    "/home/me/.ssh",
    "/home/me/.gnupg",
  ]);
  assert.ok(settings.denyRead.includes("/etc/shadow"));
  assert.equal(settings.denyRead.filter((p) => p === "/home/me/.ssh").length, 1);
  assert.deepEqual(settings.limits, {
    memory: 512 * 2 ** 20,
    processes: 512,
    cpuSeconds: 30,
    fileSize: 4 * 2 ** 30,
    openFiles: 1024,
  });
  assert.equal(appliedLimits({ ...settings.limits, cpuSeconds: undefined }, 120).cpuSeconds, 120);
});

Deno.test("the layout binds the worktree writable and its git and svc control files read-only", async () => {
  await using box = await attackBox();
  await Deno.symlink(`${box.home}/.config/svc`, `${box.worktree}/docs`);
  const settings = sandboxSettings(ConfigSchema.parse({}), box.worktree, { home: box.home });
  const layout = await sandboxLayout(settings, { worktree: box.worktree, temp: "/var/tmp/x" });
  assert.deepEqual(layout.writable, [box.worktree]);
  assert.deepEqual(layout.readOnly, [
    `${box.worktree}/.git/hooks`,
    `${box.worktree}/.git/config`,
    `${box.worktree}/.svc`,
  ]);
  assert.deepEqual(layout.hiddenDirs, [`${box.home}/.config/svc`, "/run"]);
  assert.deepEqual(layout.hiddenFiles, []);
  assert.deepEqual(bwrapArgs(layout, box.worktree), [
    ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all"],
    ...["--die-with-parent", "--new-session", "--bind", "/var/tmp/x", "/tmp"],
    // svc's code and Deno's cache where they lie in /tmp (a CI checkout), read-only.
    ...(layout.tmpReadable ?? []).flatMap((path) => ["--ro-bind", path, path]),
    ...["--bind", box.worktree, box.worktree],
    ...["--ro-bind", `${box.worktree}/.git/hooks`, `${box.worktree}/.git/hooks`],
    ...["--ro-bind", `${box.worktree}/.git/config`, `${box.worktree}/.git/config`],
    ...["--ro-bind", `${box.worktree}/.svc`, `${box.worktree}/.svc`],
    ...["--tmpfs", `${box.home}/.config/svc`, "--remount-ro", `${box.home}/.config/svc`],
    ...["--tmpfs", "/run", "--remount-ro", "/run"],
    ...["--chdir", box.worktree, "--"],
  ]);
  // read-only mode: nothing of the host writable, so no control file needs a bind.
  const readOnly = sandboxSettings(
    ConfigSchema.parse({ "sandbox.mode": "read-only" }),
    box.worktree,
    {
      home: box.home,
    },
  );
  const strict = await sandboxLayout(readOnly, { worktree: box.worktree, temp: "/var/tmp/x" });
  assert.deepEqual([strict.writable, strict.readOnly], [[], []]);
});

Deno.test("a .git file (a linked worktree or submodule) is bound read-only so it cannot be repointed", async () => {
  await using box = await attackBox();
  await Deno.remove(`${box.worktree}/.git`, { recursive: true });
  await Deno.writeTextFile(`${box.worktree}/.git`, "gitdir: /elsewhere\n");
  const settings = sandboxSettings(ConfigSchema.parse({}), box.worktree, { home: box.home });
  const layout = await sandboxLayout(settings, { worktree: box.worktree, temp: "/var/tmp/x" });
  assert.deepEqual(layout.readOnly, [`${box.worktree}/.git`, `${box.worktree}/.svc`]);
});

Deno.test("limits run through prlimit with exact bytes, and the data limit, never the address space", () => {
  const words = limitPrefix({
    memory: 4 * 2 ** 30,
    processes: 512,
    cpuSeconds: 120,
    fileSize: 2 ** 30,
    openFiles: 1024,
  });
  assert.ok(words, "prlimit or bash is on PATH");
  if (words[0].endsWith("prlimit")) {
    assert.deepEqual(words.slice(1), [
      "--data=4294967296",
      "--nproc=512",
      "--cpu=120",
      "--fsize=1073741824",
      "--nofile=1024",
      "--",
    ]);
  }
  assert.ok(!words.some((w) => /--as=|ulimit -v/.test(w)));
});

Deno.test({
  name:
    "a file larger than limits.command.file_size stops at the limit with a resource limit result",
  ignore: !SANDBOX.ok,
  fn: async () => {
    await using box = await attackBox();
    const result = await box.run("head -c 3000000 /dev/zero > big.bin", {
      "limits.command": { file_size: "1MiB" },
    });
    assert.equal(result.ok, false);
    assert.deepEqual(result.content.split("\n").slice(0, 3), [
      "resource limit: file size (1 MiB) reached",
      "exit code 153",
      "stderr:",
    ]);
    assert.equal((await Deno.stat(`${box.worktree}/big.bin`)).size, 2 ** 20);
  },
});

Deno.test("danger-full-access runs without a sandbox, keeping the limits but the process count", async () => {
  await using box = await attackBox();
  const own = new TextDecoder().decode(
    (await new Deno.Command("bash", { args: ["-c", "ulimit -u"] }).output()).stdout,
  ).trim();
  const result = await box.run(
    `cat ${box.home}/.config/svc/providers.json >/dev/null && echo read; ulimit -d; ulimit -u`,
    { "sandbox.mode": "danger-full-access", "limits.command": { memory: "1GiB", processes: 99 } },
  );
  // Outside a user namespace of its own, RLIMIT_NPROC would count every process of the user.
  assert.deepEqual(result, { content: `exit code 0\nstdout:\nread\n1048576\n${own}` });
});

Deno.test("a limit above svc's own hard limit is lowered to it instead of failing the command", () => {
  const words = limitPrefix(
    { memory: 4 * 2 ** 30, processes: 512, cpuSeconds: 120, fileSize: 2 ** 30, openFiles: 1024 },
    { os: "linux", find: (p) => `/usr/bin/${p}`, hard: { nofile: 256, nproc: Infinity } },
  );
  assert.deepEqual(words, [
    "/usr/bin/prlimit",
    "--data=4294967296",
    "--nproc=512",
    "--cpu=120",
    "--fsize=1073741824",
    "--nofile=256",
    "--",
  ]);
});

/** A PATH whose bwrap fails as it does where user namespaces are off. */
async function withoutNamespaces(fn: () => Promise<void>) {
  const bin = await Deno.makeTempDir({ prefix: "svc-nobwrap-" });
  await Deno.writeTextFile(
    `${bin}/bwrap`,
    "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel " +
      "does not allow non-privileged user namespaces.' >&2\nexit 1\n",
  );
  await Deno.chmod(`${bin}/bwrap`, 0o755);
  const path = Deno.env.get("PATH") ?? "";
  Deno.env.set("PATH", `${bin}:${path}`);
  try {
    await fn();
  } finally {
    Deno.env.set("PATH", path);
    await Deno.remove(bin, { recursive: true });
  }
}

Deno.test("where no sandbox can run, a command is refused with the reason and both ways out", async () => {
  await using box = await attackBox();
  await withoutNamespaces(async () => {
    const result = await box.run("touch ran");
    assert.equal(result.ok, false);
    assert.equal(
      result.content,
      "refused: this command must run in svc's OS sandbox, and none can run here: bubblewrap " +
        "cannot make its namespaces here: bwrap: No permissions to create new namespace, likely " +
        "because the kernel does not allow non-privileged user namespaces.. To fix it, allow " +
        "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu " +
        "24.04 and later an AppArmor profile for bwrap, see docs/security.md), or run svc where " +
        "they are allowed. To run commands without a sandbox anyway, set " +
        "sandbox.failIfUnavailable to false (or sandbox.mode to danger-full-access) in " +
        "~/.config/svc/config.json",
    );
    assert.equal(await Deno.stat(`${box.worktree}/ran`).catch(() => null), null);
  });
});

Deno.test("with failIfUnavailable false, commands run without a sandbox and say so once per process", async () => {
  await using box = await attackBox();
  await withoutNamespaces(async () => {
    const config = { "sandbox.failIfUnavailable": false };
    const first = await box.run("echo one", config);
    const second = await box.run("echo two", config);
    assert.match(first.content, /^no OS sandbox: bubblewrap cannot make its namespaces here: .*\n/);
    assert.match(
      first.content,
      /commands run with your full rights \(sandbox\.failIfUnavailable is false\)\nexit code 0\nstdout:\none$/,
    );
    assert.deepEqual(second, { content: "exit code 0\nstdout:\ntwo" });
  });
});
