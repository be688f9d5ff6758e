/**
 * Answers to a server's `elicitation/create` (form mode) during one of its tool calls: first the
 * configured approver (`ctx.elicit`: Elicitation hooks, the permission-prompt tool headless; svc
 * checks its answer against the form), then the front-end that runs the call: in the REPL the
 * person is asked (the server's message, then each field as a question with its default and its
 * choices); where no one can answer (a headless run) svc declines. Every question and who answered
 * it is noted in the call's result, which is kept in the session like every tool result.
 */
import {
  type AskRequest,
  choicesOf,
  type ElicitationDecision,
  type ElicitationRequest,
  type FieldSchema,
  type FieldValue,
  type FormSchema,
  parseField,
} from "../../../../src/plugin/api.ts";

/** The form a server sends (`requestedSchema`: a flat object of primitive fields). */
export interface ElicitParams {
  message: string;
  mode?: string;
  requestedSchema?: FormSchema;
}

/** What svc sends back, with who decided it (for the call's result). */
export interface ElicitAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, FieldValue>;
  /** `the person`, `the approver (...)` or `svc (...why...)`. */
  author: string;
}

/** Asks one question of the front-end; null when there is no one to answer. */
export type Ask = (request: AskRequest) => Promise<string | null>;

/** The configured approver (`ctx.elicit`); null when it leaves the question undecided. */
export type Approve = (request: ElicitationRequest) => Promise<ElicitationDecision | null>;

/** The REPL's text for a question the person dismissed (src/repl/questions.ts). */
const DISMISSED = /^\(the user dismissed the question/;
const TRIES = 3;

/** Asks the configured approver, then the person about `params`; declines when no one answers. */
export async function elicit(
  params: ElicitParams,
  { server, ask, approve }: { server: string; ask: Ask; approve?: Approve },
): Promise<ElicitAnswer> {
  if (params.mode && params.mode !== "form") {
    return decline(`svc (it answers only form questions, not ${params.mode})`);
  }
  const decided = await approve?.({
    server,
    message: String(params.message ?? ""),
    mode: "form",
    requested_schema: { ...(params.requestedSchema ?? {}) },
  });
  if (decided) return decided;
  const fields = Object.entries(params.requestedSchema?.properties ?? {});
  const required = new Set(params.requestedSchema?.required ?? []);
  const opening = await ask({
    target: "human",
    question: `MCP server ${server} asks: ${params.message}`,
    context: fields.length
      ? `It wants: ${fields.map(([key, field]) => field.title ?? key).join(", ")}`
      : undefined,
    options: ["answer", "decline", "cancel"],
  });
  if (opening === null) return decline("svc (no one to answer: this run is headless)");
  const choice = opening.trim().toLowerCase();
  if (DISMISSED.test(opening) || choice === "cancel") {
    return { action: "cancel", author: "the person" };
  }
  if (choice === "decline") return { action: "decline", author: "the person" };
  const content: NonNullable<ElicitAnswer["content"]> = {};
  for (const [key, field] of fields) {
    const value = await askField(key, field, { required: required.has(key), ask });
    if (value === CANCEL) return { action: "cancel", author: "the person" };
    if (value !== undefined) content[key] = value;
  }
  return { action: "accept", content, author: "the person" };
}

/** The note on the call's result: what was asked and who answered what (never the values). */
export function elicitNote(
  params: ElicitParams,
  { server, answer }: { server: string; answer: ElicitAnswer },
): string {
  const fields = Object.keys(answer.content ?? {});
  const what = answer.action === "accept"
    ? `accepted (${fields.join(", ") || "no fields"})`
    : answer.action === "decline"
    ? "declined"
    : "cancelled";
  return `[MCP server ${server} asked ${
    JSON.stringify(cut(params.message))
  }: ${what} by ${answer.author}]`;
}

const CANCEL = Symbol("cancel");

async function askField(
  key: string,
  field: FieldSchema,
  { required, ask }: { required: boolean; ask: Ask },
): Promise<FieldValue | undefined | typeof CANCEL> {
  const choices = choicesOf(field);
  const hints = [
    field.description,
    field.default !== undefined
      ? `default: ${JSON.stringify(field.default)} (an empty answer takes it)`
      : "",
    field.type === "array" ? "several: separate them with commas" : "",
    !required && field.default === undefined ? "optional: an empty answer leaves it out" : "",
  ].filter(Boolean).join("; ");
  let problem = "";
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const answer = await ask({
      target: "human",
      question: `${field.title ?? key}${required ? "" : " (optional)"}`,
      context: [problem, hints].filter(Boolean).join(" ") || undefined,
      options: choices?.map((choice) => choice.label),
    });
    if (answer === null || DISMISSED.test(answer)) return CANCEL;
    const text = answer.trim();
    if (!text) {
      if (field.default !== undefined) return field.default as string;
      if (!required) return undefined;
      problem = "An answer is needed.";
      continue;
    }
    const parsed = parseField(text, field, choices);
    if (parsed.ok) return parsed.value;
    problem = `${parsed.error}.`;
  }
  return CANCEL;
}

function decline(author: string): ElicitAnswer {
  return { action: "decline", author };
}

function cut(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
