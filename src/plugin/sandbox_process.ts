/**
 * The child process of one sandboxed plugin (see sandbox_transport.ts): started by svc with the
 * plugin's permissions and a capped heap, it runs the plugin's Worker with exactly its grant and
 * relays messages, one JSON line each, between its stdin/stdout and the Worker. It ends when svc
 * closes its stdin, and svc kills it when the plugin must stop.
 * Arguments: the Worker module's URL, the Worker's permissions as JSON, the plugin's name.
 */
/// <reference lib="deno.window" />
import { MAX_LINE_CHARS, type WorkerMessage } from "./sandbox_protocol.ts";
import { writeAllSync } from "../util/write_all.ts";

const [module, permissions, name] = Deno.args;
/** Writes one message line; one longer than svc reads becomes an error of its call, or is dropped. */
const write = (message: WorkerMessage) => {
  let line = JSON.stringify(message);
  if (line.length > MAX_LINE_CHARS) {
    const what = `a message of ${line.length} characters, over the limit of ${MAX_LINE_CHARS}`;
    const id = (message as { id?: unknown }).id;
    line = JSON.stringify(
      typeof id === "number"
        ? { t: "error", id, message: `plugin ${name} sent ${what}` }
        : { t: "log", text: `${what}, was dropped` },
    );
  }
  writeAllSync(Deno.stdout, `${line}\n`);
};

const worker = new Worker(module, {
  type: "module",
  name: `svc plugin ${name}`,
  deno: { permissions: JSON.parse(permissions) },
});
worker.onmessage = (event: MessageEvent<WorkerMessage>) => write(event.data);
worker.onerror = (event) => {
  event.preventDefault();
  console.error(`plugin ${name} crashed: ${event.message}`);
  Deno.exit(3);
};
worker.onmessageerror = () => {
  console.error(`plugin ${name} sent a message that cannot be read`);
  Deno.exit(3);
};

let buffer = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffer += chunk;
  let at: number;
  while ((at = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (line) worker.postMessage(JSON.parse(line));
  }
}
Deno.exit(0);
