/**
 * `POST /sessions/{id}/abort`: ends the session's running turn (it ends `cancelled`, its partial
 * answer saved, as when its client hangs up) or, when none runs, takes the session's requests out
 * of the queue (they answer 409). No body is read.
 */
import { checkSessionName, type SessionStore } from "../runtime/mod.ts";
import { fail, json } from "./reply.ts";
import type { TurnRegistry } from "./turns.ts";

const PREFIX = "/sessions/";
const SUFFIX = "/abort";

/** Answers `POST /sessions/{id}/abort`, or undefined when the request is not for that route. */
export async function abortRoute(
  request: Request,
  { path, app, turns }: { path: string; app: { store: SessionStore }; turns: TurnRegistry },
): Promise<Response | undefined> {
  if (!path.startsWith(PREFIX) || !path.endsWith(SUFFIX)) return undefined;
  const raw = path.slice(PREFIX.length, -SUFFIX.length);
  if (!raw || raw.includes("/")) return undefined;
  if (request.method !== "POST") {
    return fail(405, "method not allowed; /sessions/{id}/abort accepts POST", { allow: "POST" });
  }
  await request.body?.cancel().catch(() => {});
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return fail(400, "session id is not valid percent-encoding");
  }
  const problem = checkSessionName(name);
  if (problem) return fail(400, `session id: ${problem}`);
  const done = turns.abort(name);
  if (done) return json({ session: name, aborted: done.running ? "running" : "queued", ...done });
  if (!await app.store.exists(name)) return fail(404, `no session ${name}`);
  return fail(409, `nothing runs in session ${name}`);
}
