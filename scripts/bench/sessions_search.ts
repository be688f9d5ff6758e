/**
 * `svc sessions search` over 10,000 sessions of 50 messages (about 190 MB) in a temporary
 * worktree: a whole process from source, for a rare word (10 sessions), a word in every session
 * and a word in none, beside an empty `deno run` (the calibration line); and the search alone,
 * in this process. Target: under 1 s for the whole command.
 */
import { SVC_PERMISSIONS, SVC_V8_FLAGS } from "../../src/launch/svc_command.ts";
import { searchSessions } from "../../src/session/search.ts";
import { MAIN, report, timeProcess } from "./_util.ts";

const SESSIONS = 10_000;
const MESSAGES = 50;
const WORDS = ("the a session file read write model tool answer prompt check build test error " +
  "config server request context window token summary patch diff commit branch merge function " +
  "value return import export module type string number array object").split(" ");

/** Writes `count` sessions into `dir`, one a minute apart; the rare word goes into every 1,000th. */
async function generate(dir: string, count: number): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const words = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
  const start = Date.now();
  for (let s = 0; s < count; s++) {
    const at = new Date(start - s * 60_000);
    const messages = Array.from({ length: MESSAGES }, (_, i) => {
      const role = i % 4 === 0 ? "user" : i % 4 === 2 ? "tool" : "assistant";
      const text = role === "tool"
        ? `${words(40)}\n${words(40)}`
        : words(role === "user" ? 15 : 45);
      return {
        role,
        content: s % 1000 === 0 && i === 10 ? `${text} xylophone` : text,
        timestamp: at.toISOString(),
        ...(role === "tool" ? { tool_call_id: `c${i}`, name: "file_read", ok: true } : {}),
      };
    });
    const name = `ses_${String(s).padStart(5, "0")}_bench`;
    const path = `${dir}/${name}.json`;
    const doc = { name, created_at: at.toISOString(), updated_at: at.toISOString(), messages };
    await Deno.writeTextFile(path, JSON.stringify({ ...doc, errors: [], permissions: [] }));
    await Deno.utime(path, at, at);
  }
}

const home = await Deno.makeTempDir({ prefix: "svc-bench-sessions-home-" });
const worktree = await Deno.makeTempDir({ prefix: "svc-bench-sessions-" });
const dir = `${worktree}/.svc/sessions`;
try {
  await generate(dir, SESSIONS);
  let bytes = 0;
  for (const entry of Deno.readDirSync(dir)) bytes += Deno.statSync(`${dir}/${entry.name}`).size;
  console.log(`${SESSIONS} sessions of ${MESSAGES} messages, ${(bytes / 1e6).toFixed(0)} MB`);

  await Deno.writeTextFile(`${home}/empty.ts`, "");
  const floor = [];
  for (let i = 0; i < 5; i++) {
    floor.push((await timeProcess([Deno.execPath(), "run", "--quiet", `${home}/empty.ts`])).wall);
  }
  report("calibration: deno run of an empty script", floor);

  const env = { HOME: home, NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "" };
  const svc = (...args: string[]) => [
    Deno.execPath(),
    "run",
    ...SVC_PERMISSIONS,
    ...SVC_V8_FLAGS,
    "--quiet",
    MAIN,
    "sessions",
    "search",
    ...args,
  ];
  for (const [word, what] of [["xylophone", "10"], ["merge", "every"], ["zzyzx", "no"]]) {
    await timeProcess(svc(word), { cwd: worktree, env }); // warm the page cache
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await timeProcess(svc(word), { cwd: worktree, env }));
    report(
      `svc sessions search, a word in ${what} session(s): wall`,
      runs.map((r) => r.wall),
      "ms",
      "< 1000 ms",
    );
    report("  the same: peak RSS", runs.map((r) => r.rssKb / 1024), "MiB");
    const inProcess = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      searchSessions(dir, word, { limit: 20 });
      inProcess.push(performance.now() - t0);
    }
    report("  the search alone, in process", inProcess);
  }
} finally {
  await Deno.remove(worktree, { recursive: true });
  await Deno.remove(home, { recursive: true });
}
