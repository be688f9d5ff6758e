/**
 * Fields svc does not read but keeps for the provider that sent them (ProviderFields in
 * types.ts): how they are gathered from a stream, and how a request puts them back.
 */
import type { ChatMessage, ProviderFields } from "./types.ts";

/** Who sent an answer: the provider id and the base address it was reached at. */
export function originOf(provider: string, baseUrl: string): string {
  return `${provider} ${baseUrl.replace(/\/+$/, "")}`;
}

/** Fields of a chunk's delta (the assistant message) that svc reads or that are never sent back. */
const MESSAGE_KNOWN = new Set([
  "role",
  "content",
  "reasoning_content",
  "reasoning",
  "tool_calls",
  "function_call",
  "refusal",
  "audio",
  "annotations",
  "name",
]);

/** Fields of a streamed tool call that svc reads. */
const CALL_KNOWN = new Set(["index", "id", "type", "function"]);

/** The fields of a delta that are kept for its provider; null and empty values are not. */
export function unknownMessageFields(delta: Record<string, unknown>): Record<string, unknown> {
  return unknownFields(delta, MESSAGE_KNOWN);
}

/** The fields of a streamed tool-call part that are kept for its provider. */
export function unknownCallFields(call: Record<string, unknown>): Record<string, unknown> {
  return unknownFields(call, CALL_KNOWN);
}

function unknownFields(obj: Record<string, unknown>, known: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (known.has(key) || value === null || value === undefined || value === "") continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  return out;
}

/**
 * Folds a later part of a streamed field into what came before: lists are joined, objects merged
 * key by key, any other value replaces the earlier one (a signature sent once, or sent again).
 */
export function mergeFields(
  into: Record<string, unknown>,
  more: Record<string, unknown>,
): Record<string, unknown> {
  for (const [key, value] of Object.entries(more)) {
    const before = into[key];
    if (Array.isArray(before) && Array.isArray(value)) into[key] = [...before, ...value];
    else if (isPlainObject(before) && isPlainObject(value)) {
      into[key] = mergeFields({ ...before }, value);
    } else into[key] = value;
  }
  return into;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The messages as sent to the provider at `origin`: an assistant message's kept fields go back
 * onto it and its tool calls when they came from that provider, and are dropped otherwise; the
 * `provider_fields` envelope itself is never sent. Messages without kept fields are unchanged.
 */
export function wireMessages(messages: ChatMessage[], origin: string | undefined): ChatMessage[] {
  if (!messages.some((m) => m.role === "assistant" && m.provider_fields)) return messages;
  return messages.map((m) => {
    if (m.role !== "assistant" || !m.provider_fields) return m;
    const { provider_fields: fields, ...message } = m;
    if (fields.origin !== origin) return message;
    const calls = message.tool_calls?.map((call) => {
      const extra = fields.tool_calls?.[call.id];
      return extra ? { ...extra, ...call } : call;
    });
    return { ...fields.message, ...message, ...(calls ? { tool_calls: calls } : {}) };
  });
}

/** Whether a ProviderFields holds anything worth keeping. */
export function hasFields(fields: Omit<ProviderFields, "origin">): boolean {
  return Boolean(
    (fields.message && Object.keys(fields.message).length) ||
      (fields.tool_calls && Object.keys(fields.tool_calls).length),
  );
}
