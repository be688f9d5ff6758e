/**
 * `GET /approvals` (the pending live approvals) and `POST /approvals/{id}` (answer one with
 * `{"answer": "once" | "always" | "deny", "message"?, "session_id"?}`). See approvals.ts.
 */
import type { ApprovalAnswer } from "../tool/approval.ts";
import type { ClientApprovals } from "./approvals.ts";
import { type BodyLimits, readJsonBody } from "./body.ts";
import { fail, isJsonType, json } from "./reply.ts";

/** Largest body of `POST /approvals/{id}`: 64 KiB. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** Longest message to the model a deny may carry. */
export const MAX_MESSAGE_CHARS = 8000;

const ANSWERS = new Set(["once", "always", "deny"]);
const FIELDS = new Set(["answer", "message", "session_id"]);
const PREFIX = "/approvals/";

/** Answers the approval routes, or undefined when the request is not one of them. */
export async function approvalsRoute(
  request: Request,
  { path, approvals, limits }: { path: string; approvals: ClientApprovals; limits: BodyLimits },
): Promise<Response | undefined> {
  if (path === "/approvals") {
    if (request.method === "HEAD") return new Response(null, { status: 200 });
    if (request.method !== "GET") {
      return fail(405, "method not allowed; /approvals accepts GET", { allow: "GET, HEAD" });
    }
    return json({ approvals: approvals.list() });
  }
  if (!path.startsWith(PREFIX)) return undefined;
  const id = path.slice(PREFIX.length);
  if (!/^apr_[0-9a-f]{32}$/.test(id)) return fail(404, "no pending approval with that id");
  if (request.method !== "POST") {
    return fail(405, "method not allowed; /approvals/{id} accepts POST", { allow: "POST" });
  }
  if (!isJsonType(request.headers.get("content-type"))) {
    return fail(415, "request body must be sent as Content-Type: application/json");
  }
  const body = await readJsonBody(request, { ...limits, maxBytes: MAX_ANSWER_BYTES });
  if (!body.ok) return body.response;
  const reply = parseAnswer(body.value);
  if (typeof reply === "string") return fail(400, reply);
  const outcome = approvals.answer(id, reply);
  if (outcome === "answered") return json({ id, answer: reply.answer });
  if (outcome === "already_answered") return fail(409, "approval already answered or expired");
  return fail(404, "no pending approval with that id");
}

function parseAnswer(
  value: unknown,
): { answer: ApprovalAnswer; message?: string; session?: string } | string {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return "request body must be a JSON object";
  }
  const body = value as Record<string, unknown>;
  const unknown = Object.keys(body).find((k) => !FIELDS.has(k));
  if (unknown) return `unknown field ${unknown}; expected answer, message and session_id`;
  if (typeof body.answer !== "string" || !ANSWERS.has(body.answer)) {
    return 'answer must be "once", "always" or "deny"';
  }
  const reply: { answer: ApprovalAnswer; message?: string; session?: string } = {
    answer: body.answer as ApprovalAnswer,
  };
  if (body.message !== undefined) {
    if (typeof body.message !== "string" || body.message.length > MAX_MESSAGE_CHARS) {
      return `message must be a string of at most ${MAX_MESSAGE_CHARS} characters`;
    }
    reply.message = body.message;
  }
  if (body.session_id !== undefined) {
    if (typeof body.session_id !== "string") return "session_id must be a string";
    reply.session = body.session_id;
  }
  return reply;
}
