/** Builds the chat-completions request body. */
import { reasoningFields } from "./reasoning.ts";
import type { ChatRequest } from "./types.ts";
import { wireMessages } from "./provider_fields.ts";

/**
 * The JSON body for `POST /v1/chat/completions`: temperature only when set, max_tokens omitted
 * when 0 or unset, tools only when non-empty, response_format when given, plus the provider's
 * reasoning fields (a thinking budget kept below max_tokens). A stream asks for its usage
 * (`stream_options.include_usage`) unless `usage` is false: what the client sends a server that
 * refused the field. Fields kept from an earlier answer go back only to the provider that sent
 * them (`origin`, provider_fields.ts).
 */
export function buildPayload(
  provider: string,
  request: ChatRequest,
  { stream, usage = true, origin }: { stream: boolean; usage?: boolean; origin?: string },
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: wireMessages(request.messages, origin),
  };
  if (typeof request.temperature === "number") body.temperature = request.temperature;
  if (request.max_tokens) body.max_tokens = request.max_tokens;
  if (request.tools?.length) body.tools = request.tools;
  if (request.response_format) body.response_format = request.response_format;
  body.stream = stream;
  if (stream && usage) body.stream_options = { include_usage: true };
  return { ...body, ...reasoningFields(provider, request.reasoning, request.max_tokens) };
}
