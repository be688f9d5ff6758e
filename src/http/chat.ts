import {
  checkSessionName,
  type Engine,
  interactiveName,
  type SessionStore,
  type TurnResult,
} from "../runtime/mod.ts";
import {
  AnswerSchemaError,
  compileAnswerSchema,
  jsonRetriesProblem,
  type StructuredAnswer,
} from "../runtime/structured.ts";
import { withSessionHooks } from "../runtime/session_hooks.ts";
import { type BodyLimits, readJsonBody } from "./body.ts";
import { type Mutex, QueueFullError } from "./lock.ts";
import { fail, json } from "./reply.ts";
import type { SessionCache } from "./session_cache.ts";
import { acceptsEvents, type ChatStream, chatStream, type StreamDeps } from "./chat_stream.ts";
import type { TurnRegistry } from "./turns.ts";
import type { ClientApprovals } from "./approvals.ts";
import { chatImages } from "./chat_images.ts";
import type { ToolImage } from "../tool/types.ts";

/** What POST /chat needs: the shared engine, its session store and lock, the shutdown signal. */
export interface ChatDeps extends StreamDeps {
  engine: Engine;
  store: SessionStore;
  lock: Mutex;
  /** Aborted on SIGINT/SIGTERM: the running turn is cancelled, waiting requests get 503. */
  shutdown: AbortSignal;
  /** Live approvals: the pending ones and the engine's approver that parks them. */
  approvals?: ClientApprovals;
  /** Where hook warnings go (the server's log). */
  warn?: (message: string) => void;
}

/** HTTP status of a finished turn: the TurnResult is the body whatever the status. */
export function statusFor(status: TurnResult["status"]): number {
  if (status === "error") return 502;
  if (status === "cancelled") return 503;
  return 200;
}

const FIELDS = new Set([
  "prompt",
  "session_id",
  "json_schema",
  "json_retries",
  "stream",
  "approvals",
  "include_partial_messages",
  "images",
]);

/** A valid /chat body. */
export interface ChatInput {
  prompt: string;
  sessionId?: string;
  /** `json_schema`: the answer must be JSON valid against it (compiled by handleChat). */
  jsonSchema?: unknown;
  jsonRetries?: number;
  /** `stream: true`: answer Server-Sent Events (as `Accept: text/event-stream` does). */
  stream?: boolean;
  /** `approvals: "client"`: ask-gated calls wait for `POST /approvals/{id}`. */
  approvals?: "client";
  /** `include_partial_messages: true`: a streamed turn sends text and thinking deltas. */
  partial?: boolean;
  /** `images`: sent with the prompt (src/http/chat_images.ts). */
  images?: ToolImage[];
}

/** What handleChat works with besides the request. */
export interface ChatContext {
  deps: ChatDeps;
  limits: BodyLimits;
  sessions: SessionCache;
  turns: TurnRegistry;
}

/**
 * POST /chat: validate, wait for the engine lock, run one turn, answer its TurnResult (or, streamed,
 * its events ending with the result line). A client that disconnects (`request.signal`, aborted by
 * the socket adapter when the connection closes) leaves the queue, or cancels its running turn: the
 * partial turn is saved and no more tokens are spent. `POST /sessions/{id}/abort` does the same.
 */
export async function handleChat(request: Request, ctx: ChatContext): Promise<Response> {
  const { deps } = ctx;
  const body = await readJsonBody(request, ctx.limits);
  if (!body.ok) return body.response;
  const input = parseChat(body.value);
  if (typeof input === "string") return fail(400, input);
  const structured = await structuredOf(input);
  if (typeof structured === "string") return fail(400, structured);
  // A model that takes no images: refused now, before the queue, a session or a hook.
  const refused = await deps.engine.refuseImages(input.images ?? []);
  if (refused) return fail(400, refused);
  if (deps.shutdown.aborted) return shuttingDown();
  const abort = new AbortController();
  const signal = AbortSignal.any([deps.shutdown, request.signal, abort.signal]);
  const entry = ctx.turns.enter(input.sessionId, abort);
  const streamed = input.stream ?? acceptsEvents(request);
  if (input.partial && !streamed) {
    return fail(
      400,
      'include_partial_messages needs a streamed turn ("stream": true or Accept: text/event-stream)',
    );
  }
  const approvals = input.approvals && deps.approvals ? "client" : "default";
  let respond!: (response: Response) => void;
  const response = new Promise<Response>((resolve) => respond = resolve);
  let stream: ChatStream | undefined;
  deps.lock.run(async () => {
    if (deps.shutdown.aborted) return respond(shuttingDown());
    // A new session whose name is taken by then moves to `_2`, `_3`, ... on its first write.
    const resumed = input.sessionId !== undefined && await deps.store.exists(input.sessionId);
    const session = input.sessionId
      ? await ctx.sessions.open(input.sessionId)
      : deps.store.create(interactiveName(new Date(), input.prompt));
    ctx.turns.running(entry, session.name);
    if (streamed) {
      stream = chatStream(session.name, {
        deps,
        onCancel: () => abort.abort(),
        partial: input.partial,
        approvals,
      });
      respond(stream.response);
    }
    // Each request is one use of its session: SessionStart before the turn, SessionEnd after.
    const result = await withSessionHooks(deps.engine.deps, session, {
      resumed,
      warn: deps.warn ?? (() => {}),
      signal,
      run: () => {
        const run = () =>
          deps.engine.runTurn(input.prompt, {
            session,
            signal,
            structured,
            images: input.images,
            onEvent: stream?.event,
          });
        if (!input.approvals || !deps.approvals) return run();
        return deps.approvals.during((event) => stream?.svcEvent(event), run);
      },
    });
    // The turn is over before its client hears so: a DELETE it sends next finds nothing running.
    ctx.turns.leave(entry);
    if (stream) stream.result(result);
    else respond(json(result, statusFor(result.status)));
  }, AbortSignal.any([request.signal, abort.signal])).catch((err) => {
    stream?.failed(`turn failed: ${(err as Error).message}`);
    respond(refusal(err, { request, abort }));
  }).finally(() => ctx.turns.leave(entry));
  return await response;
}

/** The answer to a /chat request that threw: gone, aborted while queued, queue full, or a bug. */
function refusal(err: unknown, { request, abort }: { request: Request; abort: AbortController }) {
  if (request.signal.aborted) return fail(499, "client closed the request");
  if (abort.signal.aborted) return fail(409, "aborted by POST /sessions/{id}/abort before it ran");
  if (err instanceof QueueFullError) {
    return fail(503, `server busy: ${err.message}; retry later`, { "retry-after": "5" });
  }
  return fail(500, `turn failed: ${(err as Error).message}`);
}

/** Validates the /chat body; returns the input or a 400 message. Unknown fields are refused. */
export function parseChat(value: unknown): ChatInput | string {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return "request body must be a JSON object";
  }
  const body = value as Record<string, unknown>;
  const unknown = Object.keys(body).filter((k) => !FIELDS.has(k));
  if (unknown.length) {
    const names = [...FIELDS];
    return `unknown field ${unknown[0]}; expected ${names.slice(0, -1).join(", ")} and ${
      names.at(-1)
    }`;
  }
  if (typeof body.prompt !== "string" || !body.prompt.trim()) {
    return "prompt is required and must be a non-empty string";
  }
  const input: ChatInput = { prompt: body.prompt };
  const given = (key: string) => body[key] !== undefined && body[key] !== null;
  if (given("json_schema")) input.jsonSchema = body.json_schema;
  if (given("approvals")) {
    if (body.approvals !== "client") return 'approvals must be "client"';
    input.approvals = "client";
  }
  if (given("stream")) {
    if (typeof body.stream !== "boolean") return "stream must be true or false";
    input.stream = body.stream;
  }
  if (given("include_partial_messages")) {
    const partial = body.include_partial_messages;
    if (typeof partial !== "boolean") return "include_partial_messages must be true or false";
    input.partial = partial;
  }
  if (given("images")) {
    const images = chatImages(body.images);
    if (typeof images === "string") return images;
    if (images.length) input.images = images;
  }
  if (given("json_retries")) {
    if (!given("json_schema")) return "json_retries needs json_schema";
    const problem = jsonRetriesProblem(body.json_retries, "json_retries");
    if (problem) return problem;
    input.jsonRetries = body.json_retries as number;
  }
  if (!given("session_id")) return input;
  if (typeof body.session_id !== "string") return "session_id must be a string";
  const problem = checkSessionName(body.session_id);
  if (problem) return `session_id: ${problem}`;
  return { ...input, sessionId: body.session_id };
}

/** The compiled `json_schema` of a /chat body, or the 400 message of a bad one. */
async function structuredOf(input: ChatInput): Promise<StructuredAnswer | undefined | string> {
  if (input.jsonSchema === undefined) return undefined;
  try {
    const schema = await compileAnswerSchema(input.jsonSchema, "json_schema");
    return { schema, retries: input.jsonRetries };
  } catch (err) {
    if (err instanceof AnswerSchemaError) return err.message;
    throw err;
  }
}

function shuttingDown(): Response {
  return fail(503, "server is shutting down");
}
