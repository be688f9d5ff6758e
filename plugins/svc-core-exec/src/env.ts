/**
 * The environment handed to child processes: the host environment without secrets, svc's own
 * variables, or variables that make bash run code before the command (BASH_ENV, exported
 * functions).
 */

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|PRIVATE|COOKIE/i;
const SHELL_HOOKS = new Set([
  "BASH_ENV",
  "ENV",
  "CDPATH",
  "GLOBIGNORE",
  "SHELLOPTS",
  "BASHOPTS",
  "PROMPT_COMMAND",
  "IFS",
  "PS4",
]);
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;

/** Tells whether a variable must not reach a child process. */
export function isSecretVariable(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || name.startsWith("SVC_") || SHELL_HOOKS.has(name) ||
    name.startsWith("BASH_FUNC_") || URL_WITH_PASSWORD.test(value);
}

/** A copy of `env` (default: the host environment) without secrets and shell hooks. */
export function scrubEnv(
  env: Record<string, string> = Deno.env.toObject(),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!isSecretVariable(name, value)) out[name] = value;
  }
  return out;
}
