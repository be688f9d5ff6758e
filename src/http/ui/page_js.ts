/**
 * The script of `svc serve --ui`'s page (`GET /ui/app.js`), plain browser JavaScript kept as a
 * string module so the bundle and `deno compile` carry it (no build step, no file to find at run
 * time). It uses only the HTTP API of docs/serving.md and puts every text it gets from the server
 * (model answers, tool output, session names, job notes) into the page with `textContent`, never
 * as HTML: the page's Content-Security-Policy also requires Trusted Types, so an HTML sink such as
 * `innerHTML` throws. Served as one file: this part (token, chat, stream, approvals) and
 * src/http/ui/page_panels_js.ts (sessions and jobs). No backquotes or dollar-braces inside.
 */
import { PANELS_JS } from "./page_panels_js.ts";

const CHAT_JS = String.raw`"use strict";
// svc serve --ui. Everything from the server goes into the page as text (textContent).
const TOKEN_KEY = "svc.serve.token";
const $ = (id) => document.getElementById(id);
let token = sessionStorage.getItem(TOKEN_KEY) || "";
/** The running turn: its hang-up controller and, once its init line came, its session. */
let turn = null;
/** Pending approvals shown: id -> card. */
const cards = new Map();

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function button(label, onClick, cls) {
  const node = el("button", label, cls);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

function status(text) {
  $("status").textContent = text;
}

function headers(extra) {
  const all = Object.assign({}, extra);
  if (token) all.authorization = "Bearer " + token;
  return all;
}

/** One API call: its JSON answer, or an Error carrying the server's {"error"} message. */
async function call(method, path, body) {
  const init = { method, headers: headers(), cache: "no-store" };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (res.status === 401) {
    needLogin("The server refused the token: enter it again.");
    throw new Error("unauthorized");
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || res.status + " " + res.statusText);
  return data;
}

function report(err) {
  if (err.message !== "unauthorized") addEntry("error", err.message);
}

const WHO = {
  user: "you",
  assistant: "svc",
  thinking: "thinking",
  tool: "tool call",
  "tool-result": "tool result",
  "tool-error": "tool error",
  error: "error",
  meta: "",
};

function addEntry(kind, text) {
  const log = $("log");
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
  const item = el("li", text, kind);
  item.dataset.who = WHO[kind] === undefined ? kind : WHO[kind];
  log.append(item);
  if (atEnd) item.scrollIntoView({ block: "end" });
  return item;
}

// --- token -------------------------------------------------------------------------------------

function needLogin(message) {
  token = "";
  sessionStorage.removeItem(TOKEN_KEY);
  $("app").hidden = true;
  $("logout").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message || "";
  status("");
  $("token").focus();
}

async function login(event) {
  event.preventDefault();
  token = $("token").value.trim();
  $("token").value = "";
  try {
    await call("GET", "/sessions");
  } catch (err) {
    if (err.message !== "unauthorized") $("login-error").textContent = err.message;
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  showApp();
}

function showApp() {
  $("login").hidden = true;
  $("app").hidden = false;
  $("logout").hidden = !token;
  status(token ? "connected" : "connected (this server needs no token)");
  refreshSessions();
  refreshJobs();
  refreshApprovals();
  $("prompt").focus();
}

// --- the turn's event stream -------------------------------------------------------------------

/**
 * Server-Sent Events as svc serve writes them (event and data lines, comments, a blank line
 * ends an event): calls onData with each event's data. fetch, not EventSource, because the
 * stream is a POST that carries the token.
 */
function sseParser(onData) {
  let buffer = "";
  let data = [];
  return (chunk) => {
    buffer += chunk;
    const lines = buffer.split(/\r\n|\n|\r/);
    buffer = lines.pop();
    for (const line of lines) {
      if (line === "") {
        if (data.length) onData(data.join("\n"));
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      }
    }
  };
}

async function readStream(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const feed = sseParser((data) => onLine(JSON.parse(data)));
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    feed(value);
  }
}

/** One line of svc run --output stream-json (docs/schema/stream-json.v1.json). */
function onLine(line) {
  if (line.type === "system" && line.subtype === "init") setSession(line.session_id);
  else if (line.type === "system" && line.subtype === "svc_event") onSvcEvent(line.event);
  else if (line.type === "assistant") line.message.content.forEach(showBlock);
  else if (line.type === "user") line.message.content.forEach(showResult);
  else if (line.type === "result") showOutcome(line);
}

function showBlock(block) {
  if (block.type === "text") addEntry("assistant", block.text);
  else if (block.type === "thinking") addEntry("thinking", block.thinking);
  else if (block.type === "tool_use") {
    addEntry("tool", block.name + " " + JSON.stringify(block.input));
  }
}

function showResult(block) {
  if (block.type !== "tool_result") return;
  const text = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
  addEntry(block.is_error ? "tool-error" : "tool-result", text);
}

function showOutcome(line) {
  const turnResult = line.svc || {};
  const parts = [turnResult.status || line.subtype];
  if (line.num_turns) parts.push(line.num_turns + (line.num_turns === 1 ? " round" : " rounds"));
  if (line.errors && line.errors.length) parts.push(line.errors.join("; "));
  addEntry(line.is_error ? "error" : "meta", parts.join(" - "));
}

function onSvcEvent(event) {
  if (event.type === "approval_request") showApproval(event);
  else if (event.type === "warning" || event.type === "error") {
    addEntry(event.type === "error" ? "error" : "meta", event.message || JSON.stringify(event));
  }
}

function setSession(name) {
  $("session").value = name;
  if (turn) turn.session = name;
  status("session " + name);
}

function busy(on) {
  $("send").disabled = on;
  $("stop").disabled = !on;
  $("new-session").disabled = on;
  $("session").readOnly = on;
}

async function sendPrompt(event) {
  event.preventDefault();
  const prompt = $("prompt").value;
  if (!prompt.trim() || turn) return;
  const session = $("session").value.trim();
  const body = { prompt, stream: true };
  if (session) body.session_id = session;
  if ($("ask").checked) body.approvals = "client";
  $("prompt").value = "";
  addEntry("user", prompt);
  turn = { controller: new AbortController(), session };
  busy(true);
  try {
    const res = await fetch("/chat", {
      method: "POST",
      headers: headers({ "content-type": "application/json", accept: "text/event-stream" }),
      body: JSON.stringify(body),
      signal: turn.controller.signal,
      cache: "no-store",
    });
    if (res.status === 401) return needLogin("The server refused the token: enter it again.");
    if (!(res.headers.get("content-type") || "").startsWith("text/event-stream")) {
      const data = await res.json().catch(() => ({}));
      throw new Error(data.error || res.status + " " + res.statusText);
    }
    await readStream(res.body);
  } catch (err) {
    if (err.name === "AbortError") addEntry("meta", "stopped");
    else report(err);
  } finally {
    turn = null;
    busy(false);
    refreshSessions();
  }
}

/** Stop: POST /sessions/{id}/abort (the partial answer is saved), else hang up. */
async function stopTurn() {
  if (!turn) return;
  if (turn.session) {
    try {
      await call("POST", "/sessions/" + encodeURIComponent(turn.session) + "/abort");
      return;
    } catch (err) {
      report(err);
    }
  }
  if (turn) turn.controller.abort();
}

// --- approvals ---------------------------------------------------------------------------------

function dropCard(id) {
  const card = cards.get(id);
  if (card) card.remove();
  cards.delete(id);
}

function showApproval(request) {
  if (cards.has(request.id)) return;
  const card = el("div", undefined, "approval");
  card.dataset.id = request.id;
  card.append(el("strong", "Allow " + request.tool + "?"));
  card.append(el("pre", JSON.stringify(request.args, null, 2)));
  card.append(el("p", "session " + request.session + ": " + request.reason, "meta"));
  const message = el("input");
  message.placeholder = "what the model reads when you deny (optional)";
  const answer = (kind) => async () => {
    card.querySelectorAll("button").forEach((b) => (b.disabled = true));
    const body = { answer: kind };
    if (kind === "deny" && message.value.trim()) body.message = message.value.trim();
    try {
      await call("POST", "/approvals/" + encodeURIComponent(request.id), body);
    } catch (err) {
      report(err);
    }
    dropCard(request.id);
  };
  const bar = el("div", undefined, "bar");
  bar.append(button("Once", answer("once")), button("Always", answer("always")));
  bar.append(button("Deny", answer("deny")), message);
  card.append(bar);
  cards.set(request.id, card);
  $("approvals").append(card);
}

/** GET /approvals: shows pending approvals of other clients' turns too, drops answered ones. */
async function refreshApprovals() {
  try {
    const data = await call("GET", "/approvals");
    const pending = new Set(data.approvals.map((request) => request.id));
    data.approvals.forEach(showApproval);
    for (const id of [...cards.keys()]) if (!pending.has(id)) dropCard(id);
  } catch (err) {
    if (err.message !== "unauthorized") status("cannot list approvals: " + err.message);
  }
}

// --- start -------------------------------------------------------------------------------------

async function start() {
  $("login").addEventListener("submit", login);
  $("logout").addEventListener("click", () => needLogin(""));
  $("prompt-form").addEventListener("submit", sendPrompt);
  $("prompt").addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey) return;
    event.preventDefault();
    $("prompt-form").requestSubmit();
  });
  $("stop").addEventListener("click", stopTurn);
  wirePanels();
  setInterval(() => {
    if (!$("app").hidden && document.visibilityState === "visible") refreshApprovals();
  }, 5000);
  if (token) {
    try {
      await call("GET", "/sessions");
      showApp();
    } catch (err) {
      if (err.message !== "unauthorized") needLogin(err.message);
    }
    return;
  }
  // A server started with --no-auth answers without a token.
  const probe = await fetch("/sessions", { cache: "no-store" }).catch(() => null);
  if (probe && probe.ok) showApp();
  else needLogin("");
}
`;

/** The page's one script: the chat part above, then the panels, then `start()`. */
export const PAGE_JS = `${CHAT_JS}\n${PANELS_JS}\nstart();\n`;
