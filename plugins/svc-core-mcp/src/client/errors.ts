/** What the model and the user read when talking to a server fails. */
import { cutText } from "../../../../src/tool/text.ts";

/** Why a connect or a call failed, in one line, from an SDK, transport or server error. */
export function describeFailure(err: unknown, timeoutSeconds: number): string {
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message : String(err);
  switch (code) {
    case "REQUEST_TIMEOUT":
      return `no answer within ${timeoutSeconds} s (the server's timeout); the request was cancelled`;
    case "UNSUPPORTED_RESULT_TYPE":
      return `unsupported: ${message}`;
    case "CONNECTION_CLOSED":
      return "the connection closed";
    case "INVALID_RESULT":
      return invalidResult(message);
  }
  return cutText(message.split("\n")[0], 500);
}

/**
 * The SDK rejects a result that breaks the protocol's schema with its validation issues as JSON
 * ("Invalid result for tools/list: [...]"); this says which fields, in one line.
 */
function invalidResult(message: string): string {
  const start = message.indexOf("[");
  try {
    const issues = JSON.parse(message.slice(start)) as Array<{ path: unknown[]; message: string }>;
    const listed = issues.slice(0, 3).map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : "";
    return `the server broke the protocol: ${message.slice(0, start).trim().replace(/:$/, "")}: ${
      listed.join("; ")
    }${more}`;
  } catch {
    return cutText(message.split("\n")[0], 500);
  }
}
