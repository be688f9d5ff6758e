/**
 * `svc run` in a worktree it cannot write. Tests run as root, where `chmod 555` stops no write, so
 * as root the worktree is bind-mounted read-only inside a private mount namespace (`unshare -m`):
 * the mount ends with the process and the host never sees it. Without root, `chmod 555` is used.
 * When neither makes a folder read-only here, the test is ignored and says why.
 */
import assert from "node:assert/strict";
import { sandbox } from "../_support/cli.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const ROOT = Deno.uid() === 0;

/** Runs `command` with `dir` read-only: a private read-only bind mount as root, else mode 555. */
function readOnlyCommand(dir: string, command: string[]): string[] {
  if (!ROOT) return command;
  const script = 'mount --bind -o ro "$1" "$1" && cd "$1" && shift && exec "$@"';
  return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir, ...command];
}

async function run(dir: string, command: string[], env: Record<string, string> = {}) {
  if (!ROOT) await Deno.chmod(dir, 0o555);
  try {
    const [program, ...args] = readOnlyCommand(dir, command);
    const out = await new Deno.Command(program, {
      args,
      cwd: dir,
      env: { PATH: Deno.env.get("PATH") ?? "", ...env },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
  } finally {
    if (!ROOT) await Deno.chmod(dir, 0o755);
  }
}

/** Why a read-only folder cannot be made here, or "" when it can (a write there must fail). */
async function cannotMakeReadOnly(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "svc-ro-probe-" });
  try {
    const out = await run(dir, ["touch", "probe"]);
    if (out.code === 0) {
      return ROOT
        ? "as root, chmod does not stop writes and a read-only bind mount did not either"
        : "chmod 555 did not stop a write";
    }
    if (ROOT && !/read-only/i.test(out.stderr)) {
      return `a read-only bind mount in a private mount namespace failed: ${out.stderr.trim()}`;
    }
    return "";
  } catch (err) {
    return `unshare or mount is not available: ${(err as Error).message}`;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const reason = await cannotMakeReadOnly();

Deno.test({
  name: "svc run in a read-only worktree says why it cannot save and what to do, before calling " +
    `the model${reason ? ` (ignored: ${reason})` : ""}`,
  ignore: reason !== "",
  async fn() {
    await using box = await sandbox({ "notes.txt": "hello\n" });
    const fake = await startFakeProvider([{ text: "hi" }, { text: "hi" }]);
    const svc = (...args: string[]) =>
      run(box.worktree, [Deno.execPath(), "run", "-A", "--quiet", MAIN, "run", ...args], {
        ...box.env,
        DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
      });
    const base = ["--base-url", fake.url, "--model", "m", "-p", "hi"];
    const text = await svc(...base);
    const json = await svc(...base, "--output", "json");
    await fake.close();
    const dir = `${box.worktree}/.svc/sessions`;
    const why = `cannot create files in ${dir}: the file system is read-only; run svc in a ` +
      "writable folder, or pass --path <dir> for a writable worktree";
    assert.deepEqual([text.code, text.stdout], [1, ""]);
    assert.match(text.stderr, new RegExp(`^svc run: Could not write the session ses_\\S+: `));
    assert.equal(text.stderr.endsWith(`${why}\n`), true, text.stderr);
    const result = JSON.parse(json.stdout);
    assert.deepEqual(result.errors, [{
      code: "session_write",
      message: `Could not write the session ${result.session}: ${why}`,
    }]);
    assert.deepEqual([json.code, result.status, result.content], [1, "error", ""]);
    assert.equal(fake.requests.length, 0);
  },
});
