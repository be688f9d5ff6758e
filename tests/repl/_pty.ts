/**
 * Drives `svc` (no arguments) in a real pseudo-terminal: util-linux `script` owns the pty, the
 * bytes svc writes are fed into a headless terminal emulator, keys are written to the pty.
 */
import { SVC_PERMISSIONS } from "../../scripts/permissions.ts";
import { Emulator } from "./_xterm.ts";

import { TEST_MAIN as MAIN } from "../_support/builds.ts";

export class PtyRepl {
  readonly term: Emulator;
  readonly child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reading: Promise<void>;

  constructor(
    options: {
      cwd: string;
      env: Record<string, string>;
      columns?: number;
      rows?: number;
      /** Arguments after `svc` (default none: the plain REPL). */
      args?: string[];
    },
  ) {
    const columns = options.columns ?? 100;
    const rows = options.rows ?? 30;
    this.term = new Emulator(columns, rows);
    const svc = [Deno.execPath(), "run", ...SVC_PERMISSIONS, "--quiet", MAIN, ...options.args ?? []]
      .map((a) => `'${a}'`).join(" ");
    this.child = new Deno.Command("script", {
      args: ["-qfec", `stty cols ${columns} rows ${rows}; exec ${svc}`, "/dev/null"],
      cwd: options.cwd,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        TERM: "xterm-256color",
        ...options.env,
      },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    const decoder = new TextDecoder();
    const { term, child } = this;
    this.#reading = (async () => {
      for await (const chunk of child.stdout) term.write(decoder.decode(chunk, { stream: true }));
    })();
  }

  /** Writes keys to the terminal. */
  async send(keys: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(keys));
  }

  /** Every line of scrollback and screen. */
  lines(): Promise<string[]> {
    return this.term.lines();
  }

  /** Waits until the text (scrollback and screen) matches; throws with the screen on timeout. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    while (true) {
      const text = (await this.term.lines()).join("\n");
      if (pattern.test(text)) return text;
      if (Date.now() > end) {
        throw new Error(`timed out waiting for ${pattern}; screen:\n${text}`);
      }
      await new Promise((r) => setTimeout(r, 40));
    }
  }

  /** Waits for the process to end; its exit code. */
  async exit(): Promise<number> {
    await this.#writer.close().catch(() => {});
    const status = await this.child.status;
    await this.#reading;
    await this.child.stderr.cancel().catch(() => {});
    return status.code;
  }

  /** Kills it if still running and frees the emulator. */
  async dispose(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch { /* already ended */ }
    await this.exit().catch(() => {});
    this.term.dispose();
  }
}
