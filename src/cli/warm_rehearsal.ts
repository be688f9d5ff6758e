/**
 * A warm svc's rehearsal: one whole `svc run` before any real run arrives, in a temporary HOME
 * and worktree, against a provider on loopback inside this process that answers one word. The
 * first run of a process costs about twice a later one (code run for the first time, Deno's
 * lazily loaded internals, V8's feedback); the rehearsal pays that while nobody waits.
 *
 * Nothing of it reaches the real run: the HOME and worktree are removed, the environment and
 * folder are the client's (warm_room.ts), and what svc keeps between runs of one process is kept
 * per folder (the start memo, by its HOME) or is the same for every run (the Deno capabilities).
 */
import { startMemo } from "../util/start_memo.ts";

const ANSWER = [
  { choices: [{ index: 0, delta: { role: "assistant", content: "ready" } }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
].map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") + "data: [DONE]\n\n";

/** Runs `svc run` once for practice; never throws (a failed rehearsal only costs speed). */
export async function rehearse(runCli: (args: string[]) => Promise<number>): Promise<void> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(ANSWER, { headers: { "content-type": "text/event-stream" } }),
  );
  const home = Deno.makeTempDirSync({ prefix: "svc-warm-home-" });
  const worktree = Deno.makeTempDirSync({ prefix: "svc-warm-work-" });
  const before = { home: Deno.env.get("HOME"), cwd: Deno.cwd() };
  try {
    Deno.env.set("HOME", home);
    Deno.chdir(worktree);
    const url = `http://127.0.0.1:${server.addr.port}`;
    await runCli(["run", "--base-url", url, "--model", "warm-up", "-p", "warm up"]);
    await (await startMemo()).settled();
  } catch {
    // the real run reports what is wrong
  } finally {
    Deno.chdir(before.cwd);
    if (before.home === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", before.home);
    await server.shutdown();
    for (const dir of [home, worktree]) {
      try {
        Deno.removeSync(dir, { recursive: true });
      } catch {
        // left in the temp folder; nothing reads it
      }
    }
  }
}
