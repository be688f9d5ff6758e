/**
 * The REPL: time to the first prompt on screen for the installed `svc` (in a real pty through
 * util-linux `script`, its own start subtracted), the render CPU of a 200 KB answer streamed in
 * 4,000 chunks above the stream itself, and how long a keystroke's repaint takes mid-stream.
 */
import { type LiveView, Screen } from "../../src/repl/screen.ts";
import { makeStyle } from "../../src/repl/style.ts";
import { TurnView } from "../../src/repl/turn_view.ts";
import { Editor } from "../../src/repl/editor.ts";
import { installTemporarySvc, median, report } from "./_util.ts";

const ROUNDS = 9;

/** Wall time from spawning `command` in a pty until its output contains `marker` (ms). */
async function untilOutput(command: string, marker: string, cwd: string, home: string) {
  const start = performance.now();
  const child = new Deno.Command("script", {
    args: ["-qfec", `stty cols 100 rows 30; exec ${command}`, "/dev/null"],
    cwd,
    env: { HOME: home, TERM: "xterm-256color", PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let seen = "";
  let at = NaN;
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    seen += decoder.decode(chunk, { stream: true });
    if (seen.includes(marker)) {
      at = performance.now() - start;
      break;
    }
  }
  try {
    child.kill("SIGKILL");
  } catch { /* ended */ }
  await child.status;
  await child.stdin.close().catch(() => {});
  if (Number.isNaN(at)) throw new Error(`${command} never printed ${JSON.stringify(marker)}`);
  return at;
}

const scriptAvailable = await new Deno.Command("script", { args: ["--version"] }).output()
  .then((o) => o.success, () => false);
if (scriptAvailable) {
  const installed = await installTemporarySvc();
  const home = await Deno.makeTempDir({ prefix: "svc-bench-home-" });
  const cwd = await Deno.makeTempDir({ prefix: "svc-bench-work-" });
  const floor: number[] = [];
  const prompt: number[] = [];
  for (let i = 0; i < ROUNDS + 1; i++) {
    const f = await untilOutput("echo ready", "ready", cwd, home);
    const p = await untilOutput(installed.bin, "\u203a", cwd, home);
    if (i > 0) { // the first round warms the caches
      floor.push(f);
      prompt.push(p);
    }
  }
  report("calibration: script + stty + echo in a pty", floor);
  report("first prompt on screen, installed (raw)", prompt);
  report(
    "first prompt on screen, installed (- calibration)",
    prompt.map((p) => p - median(floor)),
    "ms",
    "< 200 ms",
  );
  await installed.remove();
  await Deno.remove(home, { recursive: true });
  await Deno.remove(cwd, { recursive: true });
} else console.log("first prompt on screen: skipped (util-linux script is not installed)");

// ---- render CPU of a streamed answer -------------------------------------------------------

const CHUNKS = 4000;
const answer = Array.from({ length: 2500 }, (_, i) => `Line ${i} of the answer, some words.\n`)
  .join("").padEnd(200 * 1024, "x");
const size = Math.ceil(answer.length / CHUNKS);
const chunks = Array.from({ length: CHUNKS }, (_, i) => answer.slice(i * size, (i + 1) * size));

/** The stream itself: each chunk handed to a callback, as the engine hands out token events. */
function baseline(): number {
  let sink = 0;
  const start = performance.now();
  for (const chunk of chunks) sink += chunk.length;
  if (sink !== answer.length) throw new Error("lost chunks");
  return performance.now() - start;
}

/** The same stream through the REPL's turn view and screen, one frame every `perFrame` chunks. */
function rendered(
  markdown: boolean,
  perFrame: number,
): { ms: number; bytes: number; paint: number } {
  let bytes = 0;
  let turn: TurnView | null = null;
  const editor = new Editor();
  const screen = new Screen(
    { write: (text) => (bytes += text.length), size: () => ({ columns: 100, rows: 30 }) },
    (): LiveView => {
      const input = editor.view("› ");
      const lines = [...(turn?.lines(100, 0) ?? []), ...input.lines];
      return { lines, cursor: { line: lines.length - 1, col: input.cursor.col } };
    },
  );
  const display = {
    show_thinking: false,
    tool_status_visible: true,
    markdown_streaming: markdown,
    delegate_echo: true,
    clear_screen: true,
  };
  turn = new TurnView((text) => screen.commit(text), makeStyle(true), display);
  let slowestPaint = 0;
  const start = performance.now();
  chunks.forEach((chunk, i) => {
    turn!.event({ type: "token", content: chunk });
    if (i % perFrame === 0) {
      // A frame; a keystroke's echo is one such paint.
      editor.handle({ name: "a", text: "a" });
      const t = performance.now();
      screen.paint();
      slowestPaint = Math.max(slowestPaint, performance.now() - t);
    }
  });
  turn.finish();
  screen.close();
  return { ms: performance.now() - start, bytes, paint: slowestPaint };
}

for (const markdown of [false, true]) {
  const stream: number[] = [];
  const render: number[] = [];
  const paints: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const base = baseline();
    // 4,000 chunks over ~10 s of a fast model at 60 frames a second: a frame every 7 chunks.
    const r = rendered(markdown, 7);
    stream.push(base);
    render.push(r.ms - base);
    paints.push(r.paint);
  }
  const mode = markdown ? "markdown_streaming on" : "markdown_streaming off";
  report(`200 KB in 4,000 chunks, render CPU (${mode})`, render, "ms", "< 200 ms");
  report(`slowest keystroke repaint mid-stream (${mode})`, paints, "ms", "< 16 ms (one frame)");
}
