/**
 * What a person is told about an ask-gated call that did not run: which tool, why, and how to
 * allow it. The note is for the front-ends (text output, `--verbose`, the TurnResult's tool
 * record), not for the model: a headless refusal still feeds back `[cancelled]` (SPEC), while a
 * person's "no" is fed back as REFUSED_BY_USER so the model knows a person declined.
 */
import type { Approval } from "./approval.ts";
import type { Tool } from "./types.ts";

/** The tool result of a call a person refused at the prompt (the REPL's "n"). */
export const REFUSED_BY_USER =
  "[refused by the user] The user declined this tool call; do not repeat it unchanged.";

/** The note of a refused ask-gated call; `reason` is why the policy asked. */
export function refusalNote(
  tool: Pick<Tool, "name" | "category">,
  refused: { reason: string; approval: Approval },
): string {
  const { reason, approval } = refused;
  switch (approval.by) {
    case "user":
      return `${tool.name} refused by you (${reason})`;
    case "flag":
      return `${tool.name} not run: refused by --no (${reason})`;
    case "policy":
      return `${tool.name} not run: it needs approval (${reason}) and nobody could be asked ` +
        `(a headless run asks no one); to allow it: ${howToAllow(tool, reason)}`;
    default:
      return `${tool.name} not run: refused by the ${approval.by} (${reason})`;
  }
}

/**
 * The ways to let such a call run: `--yes` always; the category's config key when the category
 * action is what asked (for bash with a `bash_allow` list, which keeps the rest denied); `svc
 * trust` when the worktree's being untrusted is why.
 */
function howToAllow(tool: Pick<Tool, "name" | "category">, reason: string): string {
  const ways = ["svc run --yes"];
  if (reason.startsWith(`${tool.category} category is`)) {
    ways.push(
      tool.category === "bash"
        ? '"tool_permission": {"bash": "allow", "bash_allow": ["<command prefix>", ...]} ' +
          "in the config"
        : `"tool_permission": {"${tool.category}": "allow"} in the config`,
    );
  }
  if (reason.includes("untrusted worktree")) ways.push("svc trust, if you trust this repository");
  return ways.join(", or ");
}
