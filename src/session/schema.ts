/**
 * The shape a stored session must have before svc trusts it: the fields the engine reads are
 * type-checked, everything else is kept as written (loose objects), so a file from a newer svc
 * or with hand-added fields loads and round-trips unchanged.
 */
import * as z from "zod";

const ROLES = ["user", "assistant", "command", "system", "tool"] as const;

const ToolCallSchema = z.looseObject({
  id: z.string(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const MessageSchema = z.looseObject({
  role: z.enum(ROLES),
  content: z.string().nullable(),
  tool_calls: z.array(ToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  compact_from: z.number().int().min(0).optional(),
  images: z.array(z.looseObject({ data: z.string(), mimeType: z.string() })).optional(),
});

export const SessionDocumentSchema = z.looseObject({
  messages: z.array(MessageSchema),
  errors: z.array(z.unknown()).optional(),
  permissions: z.array(z.unknown()).optional(),
});

/** The first problem of an invalid document, as "messages[3].role: ...". */
export function sessionProblem(raw: unknown): string | null {
  const result = SessionDocumentSchema.safeParse(raw);
  if (result.success) return null;
  const issue = result.error.issues[0];
  const where = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("").replace(/^\./, "");
  return `${where || "document"}: ${issue.message}`;
}
