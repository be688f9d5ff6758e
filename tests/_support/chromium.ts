// deno-lint-ignore-file no-explicit-any
/**
 * A headless Chromium (the distribution's `chromium` package) driven over the DevTools protocol
 * with Deno's own WebSocket: no browser-automation dependency. `startChromium()` starts it with
 * `--remote-debugging-port=0` and waits for the DevToolsActivePort file Chromium writes into its
 * profile; it answers the reason instead when Chromium is missing or cannot start, so a test can
 * be ignored with that reason. One browser serves a whole test file; close it at the end.
 */
import { join } from "node:path";
import { onPath } from "./tools.ts";

/** Programs tried, in order. */
const NAMES = ["chromium", "chromium-browser", "google-chrome"];
/** How long Chromium may take to open its DevTools port. */
const START_MS = 20_000;

/** A started browser: open pages, then close it (kills it if it does not exit). */
export interface Chromium {
  page(): Promise<Page>;
  close(): Promise<void>;
}

/** One tab, attached over a flat DevTools session. */
export interface Page {
  /** A DevTools command to this tab (Page.navigate, Input.insertText, ...). */
  send(method: string, params?: Record<string, unknown>): Promise<any>;
  /** Every event of this tab so far ({method, params}). */
  events: Array<{ method: string; params: any }>;
  /** Navigates and resolves once the load event fired. */
  goto(url: string): Promise<void>;
  /** Evaluates an expression in the page (awaiting a promise) and returns its JSON value. */
  evaluate<T = unknown>(expression: string): Promise<T>;
  /** Evaluates `expression` until it is truthy (returns it) or `timeoutMs` passes (throws). */
  waitFor<T = unknown>(expression: string, timeoutMs?: number): Promise<T>;
  /** Focuses the element and types `text` as keyboard input. */
  type(selector: string, text: string): Promise<void>;
  /** Clicks the middle of the element with the mouse. */
  click(selector: string): Promise<void>;
}

/** Starts headless Chromium, or answers why it cannot run here. */
export async function startChromium(): Promise<Chromium | string> {
  const program = NAMES.find(onPath);
  if (!program) return `no ${NAMES.join(", ")} on PATH (install the chromium package)`;
  const profile = await Deno.makeTempDir({ prefix: "svc-chromium-" });
  const log = join(profile, "stderr.log");
  const args = [
    "--headless",
    // The tests run as root in CI containers, where Chromium's own sandbox cannot start; the
    // browser only ever loads the test's own loopback page.
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    `--user-data-dir=${profile}`,
    "--remote-debugging-port=0",
    "about:blank",
  ];
  // stderr to a file: a pipe nobody drains would block Chromium, and the reason is in it.
  const child = new Deno.Command("sh", {
    args: ["-c", 'exec "$0" "$@" 2>"$CHROMIUM_LOG"', program, ...args],
    env: { CHROMIUM_LOG: log },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  const cleanup = async () => {
    kill();
    await child.status;
    // Its helper processes may still write into the profile for a moment after it exits.
    for (let tries = 0; tries < 20; tries++) {
      try {
        return await Deno.remove(profile, { recursive: true });
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const endpoint = await devtoolsEndpoint(profile, child.status);
  if (typeof endpoint !== "string") {
    const said = (await Deno.readTextFile(log).catch(() => "")).trim().split("\n").slice(-3);
    await cleanup();
    return `${program} did not start: ${endpoint.reason}${said[0] ? `: ${said.join(" | ")}` : ""}`;
  }
  // A test file that never closes it (filtered out) must not leave a browser behind.
  globalThis.addEventListener("unload", kill);
  let cdp: Cdp | undefined;
  return {
    async page() {
      cdp ??= await Cdp.connect(endpoint);
      return await openPage(cdp);
    },
    async close() {
      globalThis.removeEventListener("unload", kill);
      await cdp?.send("Browser.close").catch(() => {});
      cdp?.close();
      const timer = setTimeout(kill, 5000);
      await cleanup().finally(() => clearTimeout(timer));
    },
  };
}

/** Waits for `<profile>/DevToolsActivePort` (port, then path) and answers the browser's URL. */
async function devtoolsEndpoint(
  profile: string,
  status: Promise<Deno.CommandStatus>,
): Promise<string | { reason: string }> {
  let exited: Deno.CommandStatus | undefined;
  status.then((s) => exited = s);
  const deadline = Date.now() + START_MS;
  while (Date.now() < deadline) {
    if (exited) return { reason: `it exited with code ${exited.code}` };
    const text = await Deno.readTextFile(join(profile, "DevToolsActivePort")).catch(() => "");
    const [port, path] = text.split("\n");
    if (port && path) return `ws://127.0.0.1:${port.trim()}${path.trim()}`;
    await new Promise((r) => setTimeout(r, 25));
  }
  return { reason: `no DevTools port within ${START_MS / 1000} s` };
}

/** A DevTools connection: commands by id, events to listeners. */
class Cdp {
  #next = 1;
  #pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  listeners = new Set<(message: any) => void>();
  private constructor(private socket: WebSocket) {
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      const waiting = message.id !== undefined ? this.#pending.get(message.id) : undefined;
      if (waiting) {
        this.#pending.delete(message.id);
        if (message.error) waiting.reject(new Error(`${message.error.message}`));
        else waiting.resolve(message.result);
      } else {
        for (const listener of this.listeners) listener(message);
      }
    };
    socket.onclose = () => {
      for (const waiting of this.#pending.values()) waiting.reject(new Error("DevTools closed"));
      this.#pending.clear();
    };
  }

  static connect(url: string): Promise<Cdp> {
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      socket.onopen = () => resolve(new Cdp(socket));
      socket.onerror = () => reject(new Error(`cannot connect to ${url}`));
    });
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<any> {
    const id = this.#next++;
    this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }));
  }

  close(): void {
    this.socket.close();
  }
}

async function openPage(cdp: Cdp): Promise<Page> {
  const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  const events: Page["events"] = [];
  const waiters = new Set<() => void>();
  cdp.listeners.add((message) => {
    if (message.sessionId !== sessionId) return;
    events.push({ method: message.method, params: message.params });
    for (const wake of waiters) wake();
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    cdp.send(method, params, sessionId);
  await Promise.all(["Page", "Runtime", "Network", "Log"].map((d) => send(`${d}.enable`)));
  const evaluate = async (expression: string) => {
    const out = await send("Runtime.evaluate", {
      expression,
      awaitPromise: true,
      returnByValue: true,
    });
    if (out.exceptionDetails) {
      throw new Error(`${expression}: ${out.exceptionDetails.exception?.description}`);
    }
    return out.result.value;
  };
  const waitFor = async (expression: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const value = await evaluate(expression);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const at = (selector: string) => `document.querySelector(${JSON.stringify(selector)})`;
  return {
    send,
    events,
    async goto(url) {
      const loaded = events.length;
      await send("Page.navigate", { url });
      await new Promise<void>((resolve) => {
        const check = () => {
          if (!events.slice(loaded).some((e) => e.method === "Page.loadEventFired")) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
    evaluate,
    waitFor,
    async type(selector, text) {
      await evaluate(`${at(selector)}.focus()`);
      await send("Input.insertText", { text });
    },
    async click(selector) {
      const [x, y] = await evaluate(
        `(() => { const e = ${at(selector)}; e.scrollIntoView({ block: "center" }); ` +
          "const r = e.getBoundingClientRect(); " +
          "return [r.x + r.width / 2, r.y + r.height / 2]; })()",
      ) as [number, number];
      for (const type of ["mousePressed", "mouseReleased"]) {
        await send("Input.dispatchMouseEvent", { type, x, y, button: "left", clickCount: 1 });
      }
    },
  };
}
