/**
 * The bootstrap of a sandboxed plugin's Worker. svc creates the Worker with exactly the
 * plugin's permissions; this module closes the ways out that permissions do not cover (exiting
 * svc, prompting the user for more permissions, reading the terminal, writing svc's stdout), then
 * imports the plugin's entry by a computed URL, so Deno checks every module the plugin loads
 * against the Worker's permissions, runs the hooks and answers calls. Runtime imports here are
 * only svc's own small modules.
 */
/// <reference lib="deno.worker" />
import type { Config } from "../config/schema.ts";
import { zodApi } from "../tool/zod_api.ts";
import { argSchema, useZod } from "../tool/arg_schema.ts";
import { toolContext } from "../tool/context.ts";
import type {
  AskRequest,
  ElicitationDecision,
  ElicitationRequest,
  Tool,
  ToolContext,
  ToolOutput,
} from "../tool/types.ts";
import { toolImages } from "../tool/images.ts";
import type { CommandDef, PluginHookDef } from "./api.ts";
import { emptyRegistrations, HOOKS, makeRegistrar, type Registrations } from "./registrars.ts";
import {
  type CallContext,
  type HookData,
  type HostMessage,
  MAX_RESULT_CHARS,
  type RegistrationData,
  type ToolData,
  type WorkerMessage,
} from "./sandbox_protocol.ts";

const post = (message: WorkerMessage) => self.postMessage(message);
const tools = new Map<string, Tool>();
const commands = new Map<string, CommandDef>();
/** The registered hooks; a hook's index is its id in the data svc gets. */
const hooks: PluginHookDef[] = [];
const running = new Map<number, AbortController>();
const waiting = new Map<number, (value: unknown) => void>();
/** Configs by id, as svc sent them; a handful at most (one per engine setting). */
const configs = new Map<number, Config>();
let requests = 0;

lockDown();

// A tool's schema may be a builder of zod (arg_schema.ts). zod is imported with this module: once
// the plugin runs, the Worker may read only what its grant allows, so it could not load zod later.
useZod(zodApi);

self.onmessage = (event: MessageEvent<HostMessage>) => {
  const message = event.data;
  switch (message.t) {
    case "load":
      load(message.entry);
      break;
    case "call":
      call(message.id, message.tool, message.args, message.ctx);
      break;
    case "command":
      command(message.id, message.name, message.args);
      break;
    case "hook":
      hook(message.id, message.hook, message.input);
      break;
    case "cancel":
      running.get(message.id)?.abort();
      break;
    case "answer": {
      const resolve = waiting.get(message.req);
      waiting.delete(message.req);
      resolve?.(message.value);
      break;
    }
  }
};

/** An error the plugin code left uncaught stays in its log; the Worker keeps serving. */
self.addEventListener("error", (event) => {
  event.preventDefault();
  log(`uncaught error: ${event.message}`);
});
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  log(`unhandled rejection: ${describe(event.reason)}`);
});

async function load(entry: string): Promise<void> {
  post({ t: "phase", phase: "import" });
  let mod: Record<string, unknown>;
  try {
    mod = await import(entry);
  } catch (err) {
    post({ t: "failed", error: `Import failed: ${firstLine(err)}` });
    return;
  }
  // The lists stay plain data: tools and commands are posted as ToolData and CommandData.
  const data: RegistrationData = { ...emptyRegistrations(), tools: [], commands: [], hooks: [] };
  for (const { hook, kind, key } of HOOKS) {
    const fn = mod[hook];
    if (fn === undefined) continue;
    if (typeof fn !== "function") {
      post({ t: "failed", error: `${hook} failed: ${hook} is not a function` });
      return;
    }
    post({ t: "phase", phase: hook });
    const list: unknown[] = [];
    const crossing: unknown[] = [];
    const { registrar, seal } = makeRegistrar(kind, { key, list });
    const checked = {
      add(item: unknown): void {
        const before = list.length;
        registrar.add(item);
        if (list.length === before) return; // added after the hook returned: ignored
        try {
          crossing.push(asData(kind, item as Record<string, unknown>));
        } catch (err) {
          list.pop();
          throw err;
        }
      },
    };
    try {
      await fn(checked);
    } catch (err) {
      post({ t: "failed", error: `${hook} failed: ${describe(err)}` });
      return;
    } finally {
      seal();
    }
    (data[kind] as unknown[]).push(...crossing);
    if (kind === "tools") { for (const tool of list as Tool[]) tools.set(tool.name, tool); }
    if (kind === "commands") {
      for (const command of list as CommandDef[]) commands.set(command.name, command);
    }
  }
  try {
    post({ t: "loaded", registrations: data });
  } catch (err) {
    post({ t: "failed", error: `Registrations cannot be sent to svc: ${describe(err)}` });
  }
}

/** The plain-data form of one registered item; throws what the plugin must change. */
function asData(kind: keyof Registrations, item: Record<string, unknown>): unknown {
  if (kind === "tools") return toolData(item as unknown as Tool);
  if (kind === "hooks") return hookData(item as unknown as PluginHookDef);
  if (kind === "commands") {
    return { name: String(item.name), description: String(item.description ?? "") };
  }
  try {
    return structuredClone(item);
  } catch {
    const id = String(item.name ?? item.id);
    if (kind === "services") {
      throw new Error(
        `Invalid service ${id}: a service with functions (an HTTP handler) cannot run in a ` +
          "sandboxed plugin",
      );
    }
    throw new Error(`Invalid ${kind} item ${id}: only plain data can be registered`);
  }
}

/** A hook as data (its `run` stays here, under the id the data names). */
function hookData(def: PluginHookDef): HookData {
  const optional = <T>(key: string, value: unknown, type: string): T | undefined => {
    if (value === undefined || typeof value === type) return value as T | undefined;
    throw new Error(`Invalid hook ${def.event}: "${key}" must be a ${type}`);
  };
  const matcher = optional<string>("matcher", def.matcher, "string");
  const timeout = optional<number>("timeout", def.timeout, "number");
  const failClosed = optional<boolean>("fail_closed", def.fail_closed, "boolean");
  const data: HookData = {
    id: hooks.length,
    event: def.event,
    ...(matcher !== undefined ? { matcher } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
    ...(failClosed !== undefined ? { fail_closed: failClosed } : {}),
  };
  hooks.push(def);
  return data;
}

function toolData(tool: Tool): ToolData {
  const refuse = (why: string) => new Error(`Invalid tool ${tool.name}: ${why}`);
  for (const key of ["resolvePolicy", "pathsOf"] as const) {
    if (tool[key] !== undefined) {
      throw refuse(
        `"${key}" is not supported in a sandboxed plugin; the policy judges its category and ` +
          "pathArgs",
      );
    }
  }
  if (tool.usesHost) throw refuse(`"usesHost" is not supported in a sandboxed plugin`);
  let built: unknown;
  try {
    built = argSchema(tool);
  } catch (err) {
    throw refuse(`its schema could not be built (${describe(err)})`);
  }
  const schema = built as {
    toJSONSchema?: (options: object) => Record<string, unknown>;
    safeParse?: unknown;
  } | null;
  if (typeof schema?.toJSONSchema !== "function" || typeof schema.safeParse !== "function") {
    throw refuse(`"schema" must be a zod 4 object schema`);
  }
  let inputSchema: Record<string, unknown>;
  try {
    inputSchema = schema.toJSONSchema({ io: "input" });
  } catch (err) {
    throw refuse(`its schema has no JSON schema form (${describe(err)})`);
  }
  if (inputSchema.type !== "object") throw refuse(`"schema" must be a zod object schema`);
  delete inputSchema.$schema;
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;
  return {
    name: tool.name,
    category: String(tool.category),
    description: String(tool.description ?? ""),
    inputSchema,
    ...(tool.aliases ? { aliases: strings(tool.aliases) } : {}),
    ...(tool.argAliases ? { argAliases: structuredClone(tool.argAliases) } : {}),
    ...(tool.pathArgs ? { pathArgs: strings(tool.pathArgs) } : {}),
  };
}

async function call(
  id: number,
  name: string,
  args: Record<string, unknown>,
  parts: CallContext,
): Promise<void> {
  const tool = tools.get(name);
  const controller = new AbortController();
  running.set(id, controller);
  let output: ToolOutput;
  try {
    if (!tool) throw new Error(`no tool ${name} in this plugin`);
    const parsed = argSchema(tool).safeParse(args);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) =>
        `${i.path.join(".") || "arguments"}: ${i.message}`
      );
      output = {
        content: `Error: invalid arguments for ${name}: ${issues.join("; ")}`,
        ok: false,
      };
    } else {
      const out = await tool.run(
        parsed.data as Record<string, unknown>,
        context(id, parts, controller.signal),
      );
      output = plainOutput(out);
    }
  } catch (err) {
    post({ t: "error", id, message: describe(err), denied: err instanceof Deno.errors.NotCapable });
    return;
  } finally {
    running.delete(id);
  }
  // Measured here, before the result is copied out of the plugin: an oversized one never
  // reaches svc.
  const size = output.content.length + (output.status?.length ?? 0);
  if (size > MAX_RESULT_CHARS) {
    post({
      t: "error",
      id,
      message: `the result of ${name} is ${size} characters, over the limit of ` +
        `${MAX_RESULT_CHARS} characters of a plugin tool result`,
    });
    return;
  }
  post({ t: "result", id, output });
}

function context(id: number, parts: CallContext, signal: AbortSignal): ToolContext {
  if (parts.config) {
    configs.set(parts.configId, parts.config);
    if (configs.size > 8) configs.delete(configs.keys().next().value!);
  }
  return toolContext({
    worktree: parts.worktree,
    config: configs.get(parts.configId)!,
    trusted: parts.trusted,
    headless: parts.headless,
    session: parts.session,
    signal,
    outsideApproved: parts.outsideApproved,
    status: (line) => post({ t: "status", id, line: String(line) }),
    ask: (request: AskRequest) =>
      ask(id, (req) => ({ t: "ask", id, req, request: structuredClone(request) })) as Promise<
        string | null
      >,
    ...(parts.elicit
      ? {
        elicit: (request: ElicitationRequest) =>
          ask(
            id,
            (req) => ({ t: "elicit", id, req, request: structuredClone(request) }),
          ) as Promise<
            ElicitationDecision | null
          >,
      }
      : {}),
    ...(parts.delegate
      ? {
        delegate: (type: string, task: string) =>
          ask(id, (req) => ({ t: "delegate", id, req, type: String(type), task: String(task) }))
            .then((value) => plainOutput(value as ToolOutput)),
      }
      : {}),
  });
}

/** Sends a request to svc and waits for its answer. */
function ask(_id: number, message: (req: number) => WorkerMessage): Promise<unknown> {
  const req = ++requests;
  return new Promise((resolve) => {
    waiting.set(req, resolve);
    post(message(req));
  });
}

async function command(id: number, name: string, args: string): Promise<void> {
  try {
    const def = commands.get(name);
    if (!def) throw new Error(`no command ${name} in this plugin`);
    await def.run(args, { print: (text) => post({ t: "print", id, text: String(text) }) });
  } catch (err) {
    post({ t: "error", id, message: describe(err) });
    return;
  }
  post({ t: "result", id, output: { content: "" } });
}

/** Runs a hook; the result is what a hook command would print: JSON, text or nothing. */
async function hook(id: number, index: number, input: Record<string, unknown>): Promise<void> {
  let printed: string;
  try {
    const def = hooks[index];
    if (!def) throw new Error(`no hook ${index} in this plugin`);
    const value = await def.run(input);
    printed = value === undefined || value === null
      ? ""
      : typeof value === "string"
      ? value
      : JSON.stringify(value);
  } catch (err) {
    post({ t: "error", id, message: describe(err) });
    return;
  }
  if (printed.length > MAX_RESULT_CHARS) {
    post({ t: "error", id, message: `its output is over ${MAX_RESULT_CHARS} characters` });
    return;
  }
  post({ t: "result", id, output: { content: printed } });
}

function plainOutput(out: unknown): ToolOutput {
  if (typeof out === "string") return { content: out };
  const record = (out ?? {}) as Record<string, unknown>;
  return {
    content: String(record.content ?? ""),
    ...(record.ok === false ? { ok: false } : {}),
    ...(typeof record.status === "string" ? { status: record.status } : {}),
    ...(toolImages(record.images) ? { images: toolImages(record.images) } : {}),
  };
}

function log(text: string): void {
  post({ t: "log", text });
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function firstLine(err: unknown): string {
  return describe(err).split("\n")[0];
}

/**
 * Closes what Deno's permissions leave open to a Worker: `Deno.exit` and `close()` (which would
 * end the Worker silently), permission requests (which would prompt the user), the terminal
 * (`Deno.stdin` would read what the user types, stdout would mix into svc's own output, as would
 * `prompt`, `alert` and `confirm`), and `Deno.chdir` (which moves svc's working folder). Console
 * output goes to svc, which writes it to stderr.
 */
function lockDown(): void {
  const refuse = (what: string) => () => {
    throw new Error(`${what} is not available in a sandboxed plugin`);
  };
  const fix = (target: object, key: string, value: unknown) =>
    Object.defineProperty(target, key, { value, writable: false, configurable: false });
  fix(Deno, "exit", refuse("Deno.exit"));
  fix(Deno, "chdir", refuse("Deno.chdir"));
  fix(self, "close", refuse("close()"));
  if ("close" in globalThis && globalThis !== self) fix(globalThis, "close", refuse("close()"));
  const permissions = Deno.permissions;
  for (const target of [permissions, Object.getPrototypeOf(permissions)]) {
    fix(target, "request", () => Promise.reject(refuse("Deno.permissions.request")()));
    fix(target, "requestSync", refuse("Deno.permissions.requestSync"));
  }
  for (const name of ["prompt", "alert", "confirm"]) {
    if (name in globalThis) fix(globalThis, name, refuse(name));
  }
  const decoder = new TextDecoder();
  const stdin = {
    isTerminal: () => false,
    read: () => Promise.resolve(null),
    readSync: () => null,
    readable: new ReadableStream({ start: (c) => c.close() }),
    setRaw: refuse("Deno.stdin.setRaw"),
    close() {},
  };
  const output = {
    isTerminal: () => false,
    write: (bytes: Uint8Array) => Promise.resolve(written(bytes)),
    writeSync: (bytes: Uint8Array) => written(bytes),
    writable: new WritableStream<Uint8Array>({ write: (bytes) => void written(bytes) }),
    close() {},
  };
  function written(bytes: Uint8Array): number {
    log(decoder.decode(bytes).replace(/\n$/, ""));
    return bytes.length;
  }
  fix(Deno, "stdin", stdin);
  fix(Deno, "stdout", output);
  fix(Deno, "stderr", output);
  const text = (args: unknown[]) =>
    args.map((a) => (typeof a === "string" ? a : Deno.inspect(a))).join(" ");
  for (const method of ["log", "info", "debug", "warn", "error", "trace", "dir", "table"]) {
    fix(console, method, (...args: unknown[]) => log(text(args)));
  }
}
