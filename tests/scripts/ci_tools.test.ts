import assert from "node:assert/strict";
import { join } from "node:path";

const TOOLS = new URL("../../.ci/tools", import.meta.url).pathname;
const BASH = ["/bin/bash", "/usr/bin/bash"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

/** Runs `.ci/tools` with a PATH holding only fake programs that record their arguments. */
async function runTools(fakes: string[]) {
  const dir = await Deno.makeTempDir({ prefix: "svc-ci-tools-" });
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  const log = join(dir, "calls.log");
  for (const name of fakes) {
    await Deno.writeTextFile(join(bin, name), `#!/bin/sh\necho "${name} $*" >> ${log}\n`);
    await Deno.chmod(join(bin, name), 0o755);
  }
  try {
    const out = await new Deno.Command(BASH!, {
      args: [TOOLS],
      env: { PATH: bin },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    const calls = await Deno.readTextFile(log).catch(() => "");
    return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr), calls };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test(
  "the CI installs ripgrep, git, script, bubblewrap, prlimit, curl, jq and chromium with apt-get when they are missing (needs bash)",
  {
    ignore: !BASH,
  },
  async () => {
    const missing = await runTools(["apt-get"]);
    assert.deepEqual(missing, {
      code: 0,
      stdout: "",
      stderr: "installing ripgrep git bsdutils bubblewrap util-linux curl jq chromium with " +
        "apt-get: tests that need them run instead of being ignored\n",
      calls: "apt-get update -qq\napt-get install -y -qq ripgrep git bsdutils bubblewrap " +
        "util-linux curl jq chromium\n",
    });
    const present = await runTools([
      "apt-get",
      "rg",
      "git",
      "script",
      "bwrap",
      "prlimit",
      "curl",
      "jq",
      "chromium",
    ]);
    assert.deepEqual(present, { code: 0, stdout: "", stderr: "", calls: "" });
  },
);

Deno.test("without apt-get the CI says which tools are missing and goes on (needs bash)", {
  ignore: !BASH,
}, async () => {
  const out = await runTools(["git", "script", "bwrap", "prlimit", "curl", "jq", "chromium"]);
  assert.deepEqual(out, {
    code: 0,
    stdout: "",
    stderr: "missing ripgrep and no apt-get to install it: tests that need it are ignored\n",
    calls: "",
  });
});
