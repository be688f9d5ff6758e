/**
 * The OpenAPI 3.1 document of `svc serve`, answered at `GET /openapi.json` (behind the token).
 * tests/http/openapi.test.ts requests every documented path and method and checks that every
 * route the handler knows is documented, so this document and the routes cannot drift apart.
 */
import { fail, json } from "./reply.ts";
import type { RouteApp } from "./route_module.ts";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const body = (schema: unknown, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const error = (description: string) => body(ref("Error"), description);
const ERRORS = {
  "401": error("missing or wrong bearer token"),
  "403": error("foreign Host, Origin or Sec-Fetch-Site"),
};
const ID = {
  name: "id",
  in: "path",
  required: true,
  description: "an exact session name (no prefix): 1-128 of letters, digits, _ . -",
  schema: { type: "string", pattern: "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$" },
};
const whole = (name: string, description: string, max?: number) => ({
  name,
  in: "query",
  required: false,
  description,
  schema: { type: "integer", minimum: 0, ...(max ? { maximum: max } : {}) },
});

/** The document; `version` is the server's, `jobs` whether it answers the /jobs routes. */
export function openapiDocument(
  version: string,
  { jobs }: { jobs: boolean },
): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "svc serve",
      version,
      description: "The HTTP API of svc serve; see docs/serving.md. Every error is {error}.",
    },
    security: [{ bearer: [] }],
    paths: jobs ? { ...PATHS, ...JOB_PATHS } : PATHS,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: SCHEMAS,
    },
  };
}

const PATHS = {
  "/chat": {
    post: {
      summary: "Run one turn (JSON TurnResult, or Server-Sent Events with stream or Accept)",
      requestBody: { required: true, ...body(ref("ChatRequest"), "the turn") },
      responses: {
        "200": {
          description: "the TurnResult (status ok, truncated or empty), or an SSE stream",
          content: {
            "application/json": { schema: ref("TurnResult") },
            "text/event-stream": { schema: { type: "string" } },
          },
        },
        "400": error("invalid body, a bad image, or images for a model that takes none"),
        ...ERRORS,
        "413": error("body over 12 MiB"),
        "415": error("not application/json"),
        "502": body(ref("TurnResult"), "the turn ended with status error"),
        "503": error("shutting down, or the queue is full (Retry-After)"),
      },
    },
  },
  "/sessions": {
    get: {
      summary: "List session names, or search sessions with q",
      parameters: [
        {
          name: "q",
          in: "query",
          required: false,
          description: "text to look for (case-insensitive); without it the names are listed",
          schema: { type: "string", minLength: 1 },
        },
        whole("limit", "with q: most sessions returned (default 20)", 200),
      ],
      responses: {
        "200": body(
          { oneOf: [ref("SessionList"), ref("SearchReport")] },
          "{sessions} without q, the search report with it",
        ),
        "400": error("empty q or bad limit"),
        ...ERRORS,
      },
    },
  },
  "/sessions/{id}": {
    parameters: [ID],
    get: {
      summary: "A session with one page of its messages",
      parameters: [
        whole("offset", "first message index (default 0)"),
        whole("limit", "messages in the page (1-1000, default 100)", 1000),
      ],
      responses: {
        "200": body(ref("SessionPage"), "the session"),
        "400": error("not a session name, or bad offset/limit"),
        ...ERRORS,
        "404": error("no such session"),
      },
    },
    delete: {
      summary: "Delete a session and its undo checkpoints (svc sessions rm)",
      responses: {
        "200": body(ref("Deleted"), "deleted"),
        "400": error("not a session name"),
        ...ERRORS,
        "404": error("no such session"),
        "409": error("a turn of the session runs or waits, or a job run in progress uses it"),
      },
    },
  },
  "/sessions/{id}/abort": {
    parameters: [ID],
    post: {
      summary:
        "End the session's running turn (cancelled, partial answer saved) or its queued ones",
      responses: {
        "200": body({ type: "object" }, "{session, aborted: running|queued, ...}"),
        "400": error("not a session name"),
        ...ERRORS,
        "404": error("no such session"),
        "409": error("nothing runs in that session"),
      },
    },
  },
  "/approvals": {
    get: {
      summary: 'The pending live approvals of served turns ("approvals": "client")',
      responses: {
        "200": body(
          {
            type: "object",
            properties: { approvals: { type: "array", items: { type: "object" } } },
          },
          "{approvals: [{id, session, tool, args, reason, created_at}]}",
        ),
        ...ERRORS,
      },
    },
  },
  "/approvals/{id}": {
    parameters: [{
      name: "id",
      in: "path",
      required: true,
      description: "the id of an approval_request event",
      schema: { type: "string", pattern: "^apr_[0-9a-f]{32}$" },
    }],
    post: {
      summary: "Answer a pending approval: once, always or deny (with an optional message)",
      requestBody: {
        required: true,
        ...body({
          type: "object",
          additionalProperties: false,
          required: ["answer"],
          properties: {
            answer: { enum: ["once", "always", "deny"] },
            message: { type: "string", maxLength: 8000 },
            session_id: { type: "string" },
          },
        }, "the answer"),
      },
      responses: {
        "200": body({ type: "object" }, "{id, answer}"),
        "400": error("invalid body"),
        ...ERRORS,
        "404": error("no pending approval with that id"),
        "409": error("already answered or expired"),
        "415": error("not application/json"),
      },
    },
  },
  "/health": {
    get: {
      summary: "Liveness probe (no token)",
      security: [],
      responses: { "200": body(ref("Health"), "ok") },
    },
  },
  "/version": {
    get: {
      summary: "The server's version (no token)",
      security: [],
      responses: { "200": body(ref("Version"), "the version") },
    },
  },
  "/mcp": {
    post: {
      summary: "MCP streamable HTTP (one JSON-RPC request); only with the svc-core-mcp plugin",
      requestBody: { required: true, ...body({ type: "object" }, "a JSON-RPC 2.0 request") },
      responses: {
        "200": {
          description: "the JSON-RPC response, as JSON or text/event-stream",
          content: {
            "application/json": { schema: { type: "object" } },
            "text/event-stream": { schema: { type: "string" } },
          },
        },
        ...ERRORS,
      },
    },
  },
  "/openapi.json": {
    get: {
      summary: "This document",
      responses: { "200": body({ type: "object" }, "the OpenAPI 3.1 document"), ...ERRORS },
    },
  },
};

const NAME = {
  name: "name",
  in: "path",
  required: true,
  description: "a job's name: 1-64 of letters, digits, _ and -",
  schema: { type: "string", pattern: "^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$" },
};
const JOB_ANSWERS = {
  "400": error("not a job name"),
  ...ERRORS,
  "404": error("no such job"),
};
const change = (summary: string) => ({
  parameters: [NAME],
  post: {
    summary,
    responses: {
      "200": body({ type: "object" }, "the job as `svc jobs <change> --json` shows it"),
      ...JOB_ANSWERS,
      "409": error("refused (for example a one-shot job whose time has passed)"),
    },
  },
});

const JOB_PATHS = {
  "/jobs": {
    get: {
      summary: "The jobs and the daemon, as svc jobs status --json",
      responses: { "200": body({ type: "object" }, "the status report"), ...ERRORS },
    },
  },
  "/jobs/{name}": {
    parameters: [NAME],
    get: {
      summary: "A job: definition, state, approval, memory (svc jobs show --json)",
      responses: { "200": body({ type: "object" }, "the job"), ...JOB_ANSWERS },
    },
  },
  "/jobs/{name}/approve": change("Approve the job as defined now, as this server's user"),
  "/jobs/{name}/reject": change("Clear this user's approval of the job"),
  "/jobs/{name}/enable": change("Re-arm the job"),
  "/jobs/{name}/disable": change("Stop the job firing until enabled"),
  "/jobs/{name}/stop": change("Same as disable"),
  "/jobs/{name}/run": {
    parameters: [NAME],
    post: {
      summary: "Start one run now (an approved job only); poll GET /jobs/{name} for its outcome",
      responses: {
        "202": {
          ...body(ref("JobRunStarted"), "the run started and goes on in the background"),
          headers: {
            Location: {
              description: "/jobs/{name}, which shows the run",
              schema: { type: "string" },
            },
          },
        },
        ...JOB_ANSWERS,
        "409": error("refused: not approved (approve it first), or running already"),
      },
    },
  },
};

const SCHEMAS = {
  Error: {
    type: "object",
    required: ["error"],
    properties: { error: { type: "string" } },
  },
  Health: { type: "object", properties: { status: { const: "ok" } } },
  Version: { type: "object", properties: { version: { type: "string" } } },
  ChatRequest: {
    type: "object",
    additionalProperties: false,
    required: ["prompt"],
    properties: {
      prompt: { type: "string", minLength: 1 },
      session_id: { type: "string" },
      json_schema: { type: ["object", "boolean"] },
      json_retries: { type: "integer", minimum: 0, maximum: 10 },
      stream: { type: "boolean" },
      approvals: {
        const: "client",
        description: "ask-gated calls wait for POST /approvals/{id} (else they are denied)",
      },
      include_partial_messages: {
        type: "boolean",
        description: "streamed turns only: text and thinking deltas as stream_event lines",
      },
      images: {
        type: "array",
        maxItems: 8,
        description: "images sent with the prompt (PNG, JPEG, GIF or WebP, at most 5 MiB each); " +
          "the model must take images (docs/providers.md#images)",
        items: { oneOf: [{ type: "string", pattern: "^data:image/[^;,]+;base64," }, ref("Image")] },
      },
    },
  },
  Image: {
    type: "object",
    additionalProperties: false,
    required: ["data"],
    properties: {
      data: { type: "string", description: "base64 (or a data: URL)" },
      mime_type: { enum: ["image/png", "image/jpeg", "image/gif", "image/webp"] },
      name: { type: "string", description: "how the image is named to people, never sent" },
    },
  },
  TurnResult: {
    type: "object",
    required: ["content", "session", "status", "reason"],
    properties: {
      content: { type: "string" },
      session: { type: "string" },
      status: { enum: ["ok", "truncated", "empty", "error", "cancelled"] },
      reason: { type: "string" },
      structured_output: {},
    },
  },
  SessionList: {
    type: "object",
    required: ["sessions"],
    properties: { sessions: { type: "array", items: { type: "string" } } },
  },
  SearchReport: {
    type: "object",
    required: ["results"],
    properties: {
      results: {
        type: "array",
        items: {
          type: "object",
          properties: {
            name: { type: "string" },
            size_bytes: { type: "integer" },
            updated_at: { type: "string" },
            matches: { type: "integer" },
            messages: { type: "integer" },
            score: { type: "number" },
            hits: { type: "array", items: { type: "object" } },
          },
        },
      },
      scanned: { type: "integer" },
      candidates: { type: "integer" },
      skipped: { type: "array", items: { type: "object" } },
    },
  },
  SessionPage: {
    type: "object",
    required: ["name", "total_messages", "offset", "limit", "messages"],
    properties: {
      name: { type: "string" },
      created_at: { type: "string" },
      updated_at: { type: "string" },
      context: { type: "object" },
      total_messages: { type: "integer" },
      offset: { type: "integer" },
      limit: { type: "integer" },
      messages: { type: "array", items: { type: "object" } },
    },
  },
  JobRunStarted: {
    type: "object",
    required: ["name", "run", "session", "state", "location"],
    properties: {
      name: { type: "string" },
      run: { type: "integer", minimum: 1, description: "the run's number in the job's history" },
      session: { type: "string", description: "the session the run's attempts use" },
      state: { const: "executing" },
      location: { type: "string", description: "GET it for the job's state and history" },
    },
  },
  Deleted: {
    type: "object",
    properties: { deleted: { type: "string" }, checkpoints_removed: { type: "boolean" } },
  },
};

/** `GET /openapi.json`; undefined for any other path. */
export function openapiRoute(
  request: Request,
  { path, app }: { path: string; app: RouteApp },
): Promise<Response | undefined> {
  if (path !== "/openapi.json") return Promise.resolve(undefined);
  if (request.method !== "GET") {
    return Promise.resolve(
      fail(405, "method not allowed; /openapi.json accepts GET", { allow: "GET, HEAD" }),
    );
  }
  return Promise.resolve(json(openapiDocument(app.version, { jobs: app.jobs !== undefined })));
}
