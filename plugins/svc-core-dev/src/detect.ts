/**
 * Chooses the command of code_test, code_lint and code_format: the configured dev.*_cmd, else a
 * default from the worktree (deno.json, package.json scripts, a Python project). A leading
 * python or python3 resolves to the interpreter on PATH.
 */
import { join } from "../../../src/plugin/api.ts";
import { which } from "../../../src/tool/shell.ts";

/** Which dev tool is asking. */
export type DevKind = "test" | "lint" | "format";

/**
 * The command to run, the text judged by bash_allow and, for a detected one, what it was chosen
 * from (`package.json script "test": "jest"`); or a readable reason there is none.
 */
export type DevCommand = { command: string; checked: string; from?: string } | { error: string };

/** The dev.* configuration keys. */
export type DevConfig = Partial<Record<"dev.test_cmd" | "dev.lint_cmd" | "dev.format_cmd", string>>;

type Picked = { checked: string; from?: string } | { error: string };

const DENO = { test: "deno test", lint: "deno lint", format: "deno fmt" };
const NPM_SCRIPT = { test: "test", lint: "lint", format: "format" };

/** Single-quotes a word for bash. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command of a dev tool in `worktree`; `target` is appended as one quoted word. */
export function devCommand(
  kind: DevKind,
  worktree: string,
  { config, target }: { config: DevConfig | undefined; target?: string },
): DevCommand {
  if (target !== undefined && (target === "" || target.startsWith("-"))) {
    return { error: "Target must be a path or test name, not an option" };
  }
  const configured = config?.[`dev.${kind}_cmd`]?.trim();
  const picked: Picked = configured
    ? { checked: configured + (target === undefined ? "" : ` ${shellQuote(target)}`) }
    : defaultCommand(kind, worktree, target);
  if ("error" in picked) return picked;
  return { ...picked, command: resolvePython(picked.checked) };
}

function defaultCommand(kind: DevKind, worktree: string, target?: string): Picked {
  const has = (name: string) => exists(join(worktree, name));
  const arg = target === undefined ? "" : ` ${shellQuote(target)}`;
  if (has("deno.json") || has("deno.jsonc")) {
    return { checked: DENO[kind] + arg, from: has("deno.json") ? "deno.json" : "deno.jsonc" };
  }
  if (has("package.json")) {
    const script = NPM_SCRIPT[kind];
    const body = packageScripts(worktree)[script];
    if (!body) {
      return { error: `package.json has no "${script}" script; add one or set dev.${kind}_cmd` };
    }
    const base = kind === "test" ? "npm test" : `npm run ${script}`;
    return {
      checked: base + (target === undefined ? "" : ` -- ${shellQuote(target)}`),
      from: `package.json script "${script}": ${JSON.stringify(body)}`,
    };
  }
  if (isPythonProject(worktree)) {
    const python = pythonCommand(kind, worktree, target);
    return "error" in python ? python : { ...python, from: "a Python project" };
  }
  return {
    error: `No ${kind} command: set dev.${kind}_cmd, or add deno.json, package.json or a ` +
      "Python project",
  };
}

function pythonCommand(kind: DevKind, worktree: string, target?: string): Picked {
  const arg = target === undefined ? "" : ` ${shellQuote(target)}`;
  const path = target === undefined ? " ." : arg;
  if (kind === "test") {
    if (target === undefined) return { checked: "python3 -m unittest discover" };
    const isDir = (() => {
      try {
        return Deno.statSync(join(worktree, target)).isDirectory;
      } catch {
        return false;
      }
    })();
    return { checked: `python3 -m unittest ${isDir ? "discover -s " : ""}${shellQuote(target)}` };
  }
  if (kind === "lint") {
    if (which("ruff")) return { checked: `ruff check${arg}` };
    if (which("pyflakes")) return { checked: `python3 -m pyflakes${path}` };
    return { checked: `python3 -m compileall -q${path}` };
  }
  if (which("ruff")) return { checked: `ruff format${arg}` };
  if (which("black")) return { checked: `black${path}` };
  return { error: "No Python formatter found: install ruff or black, or set dev.format_cmd" };
}

/** Replaces a leading `python` or `python3` word with the interpreter found on PATH. */
export function resolvePython(command: string): string {
  const match = /^python3?(?=[ \t]|$)/.exec(command);
  if (!match) return command;
  const interpreter = which("python3") ?? which("python");
  return interpreter ? shellQuote(interpreter) + command.slice(match[0].length) : command;
}

function isPythonProject(worktree: string): boolean {
  if (["pyproject.toml", "setup.py", "setup.cfg"].some((f) => exists(join(worktree, f)))) {
    return true;
  }
  try {
    for (const entry of Deno.readDirSync(worktree)) {
      if (entry.isFile && entry.name.endsWith(".py")) return true;
    }
  } catch {
    // unreadable worktree: not a Python project
  }
  return false;
}

function packageScripts(worktree: string): Record<string, unknown> {
  try {
    const json = JSON.parse(Deno.readTextFileSync(join(worktree, "package.json")));
    return typeof json?.scripts === "object" && json.scripts ? json.scripts : {};
  } catch {
    return {};
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
