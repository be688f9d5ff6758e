import { readTextCapped } from "../util/fs.ts";
import { canonicalPath, isInside } from "../util/canonical_path.ts";
import type { Config } from "../config/schema.ts";
import { cutText } from "../util/text_cut.ts";
import { DEFAULT_PROMPT, PLAN_MODE } from "../catalog/prompts.ts";

/** Project instructions are capped at this many characters. */
export const PROJECT_INSTRUCTIONS_MAX = 20000;

/** Reads the project instructions file, capped; null when disabled or absent. */
export async function readProjectInstructions(
  worktree: string,
  fileName: string,
): Promise<string | null> {
  if (!fileName) return null;
  try {
    // Only a file inside the worktree (after `..` and symlinks): a config naming ~/.ssh/id_rsa
    // must not put it in front of the model.
    const path = canonicalPath(worktree, fileName);
    if (!isInside(worktree, path)) return null;
    // At most 4 bytes a character: this many bytes always hold the capped text.
    const { text } = await readTextCapped(path, PROJECT_INSTRUCTIONS_MAX * 4, { head: true });
    if (text.length <= PROJECT_INSTRUCTIONS_MAX) return text;
    return `${
      cutText(text, PROJECT_INSTRUCTIONS_MAX)
    }\n[... ${fileName} truncated at ${PROJECT_INSTRUCTIONS_MAX} characters]`;
  } catch {
    return null;
  }
}

/**
 * The leading system messages: project instructions first (when the file exists), then the
 * system prompt (the agent type's, configured or default) with the mode instruction and the
 * environment block (environment_block.ts). docs/prompt.md describes each part.
 */
export async function composeSystemMessages(
  config: Config,
  worktree: string,
  extra: { typePrompt?: string; mode?: "plan" | "build"; environment?: string } = {},
): Promise<string[]> {
  const messages: string[] = [];
  const instructions = await readProjectInstructions(worktree, config.project_instructions);
  if (instructions !== null) {
    messages.push(`Project instructions (${config.project_instructions}):\n\n${instructions}`);
  }
  const parts = [extra.typePrompt ?? config.system_prompt ?? DEFAULT_PROMPT];
  if (extra.typePrompt && config.system_prompt) parts.push(config.system_prompt);
  if ((extra.mode ?? config.mode) === "plan") parts.push(PLAN_MODE);
  if (extra.environment) parts.push(extra.environment);
  messages.push(parts.join("\n\n"));
  return messages;
}
