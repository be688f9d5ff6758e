// deno-lint-ignore-file no-explicit-any -- tool-call parts are untyped JSON, checked field by field
/**
 * Reassembles the tool calls of one streamed answer from their parts, as real servers send them:
 * OpenAI's fragments tied by `index`; whole calls that reuse one index with new ids (Ollama 0.20,
 * vLLM, SGLang); calls without any index, each in its own chunk, with argument fragments that carry
 * neither index nor id (Gemini's compatible endpoint); arguments sent as an object.
 */
import { mergeFields, unknownCallFields } from "./provider_fields.ts";
import type { ChatToolCall } from "./types.ts";

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
  /** Fields svc does not read, kept for the provider (provider_fields.ts). */
  extra: Record<string, unknown>;
}

/** One call as assembled, with the fields kept for its provider. */
export interface AssembledCall {
  call: ChatToolCall;
  extra: Record<string, unknown>;
}

/** The tool calls of one answer, fed part by part. */
export class ToolCallAssembly {
  #calls: PartialCall[] = [];
  /** The call each index currently stands for (an index can be reused for a new call). */
  #byIndex = new Map<number, PartialCall>();
  #byId = new Map<string, PartialCall>();

  /** Whether any part arrived. */
  get started(): boolean {
    return this.#calls.length > 0;
  }

  /**
   * Adds one tool-call part. A part with an index joins the call at that index unless it starts a
   * new one (startsNew); a part without an index joins the call with its id, or, with no id, the
   * latest call; a new id always starts a new call.
   */
  add(part: any): void {
    if (!part || typeof part !== "object") return;
    const fn = part.function && typeof part.function === "object" ? part.function : {};
    const id = typeof part.id === "string" ? part.id : "";
    const name = typeof fn.name === "string" ? fn.name : "";
    const args = typeof fn.arguments === "string"
      ? fn.arguments
      : fn.arguments && typeof fn.arguments === "object"
      ? JSON.stringify(fn.arguments)
      : "";
    const index = typeof part.index === "number" ? part.index : undefined;
    const known = id ? this.#byId.get(id) : undefined;
    let call = known ??
      (index === undefined ? (id ? undefined : this.#calls.at(-1)) : this.#byIndex.get(index));
    if (call && call !== known && startsNew(call, { id, name, args })) call = undefined;
    if (!call) call = this.#start(name || this.#byIndexName(index, id, args));
    if (index !== undefined) this.#byIndex.set(index, call);
    if (id && !call.id) (call.id = id, this.#byId.set(id, call));
    if (name && !call.name) call.name = name;
    if (args) appendArguments(call, args);
    mergeFields(call.extra, unknownCallFields(part));
  }

  /**
   * A call started at a reused index with whole arguments but no name (a server that names a call
   * only once per index) is the same function as the call before it there.
   */
  #byIndexName(index: number | undefined, id: string, args: string): string {
    if (index === undefined || id || !isWholeObject(args)) return "";
    return this.#byIndex.get(index)?.name ?? "";
  }

  #start(name: string): PartialCall {
    const call = { id: "", name, arguments: "", extra: {} };
    this.#calls.push(call);
    return call;
  }

  /**
   * The calls in the order they started; a call without a name is dropped, one without an id gets
   * `call_<n>` (its position, unique among the answer's ids), empty arguments become `{}`.
   */
  assemble(keep: (args: string) => boolean = () => true): AssembledCall[] {
    const taken = new Set(this.#calls.map((c) => c.id).filter(Boolean));
    const out: AssembledCall[] = [];
    this.#calls.forEach((c, position) => {
      let id = c.id;
      if (!id) {
        id = `call_${position}`;
        for (let n = 2; taken.has(id); n++) id = `call_${position}_${n}`;
        taken.add(id);
      }
      if (!c.name || !keep(c.arguments)) return;
      const args = c.arguments.trim() ? c.arguments : "{}";
      out.push({
        call: { id, type: "function", function: { name: c.name, arguments: args } },
        extra: c.extra,
      });
    });
    return out;
  }
}

/**
 * Whether a part on an already started call begins another call: it carries an id other than the
 * call's, or a name other than the call's, or whole arguments where the call's are already
 * complete (whole arguments replace nothing complete, and are never glued onto it).
 */
function startsNew(call: PartialCall, part: { id: string; name: string; args: string }): boolean {
  if (part.id && call.id) return part.id !== call.id;
  if (part.name && call.name && part.name !== call.name) return true;
  // The fragment first: it is small and rarely whole, so the call's (growing) arguments are
  // parsed only when a whole object arrives, not on every fragment that ends in "}".
  return isWholeObject(part.args) && isWholeObject(call.arguments);
}

/** Appends a fragment; whole arguments sent again for a call that has them are not repeated. */
function appendArguments(call: PartialCall, args: string): void {
  if (isWholeObject(args) && isWholeObject(call.arguments)) return;
  call.arguments += args;
}

/** Whether `text` is a complete JSON object by itself. */
export function isWholeObject(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}
