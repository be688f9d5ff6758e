/**
 * The names hook scripts written for Claude Code's format use for svc's tools and arguments
 * (docs/hooks.md): `Bash` is run_command, `Write` is file_write with `file_path` for `path`, and so
 * on. A hook sees the convention's name and input; an `updatedInput` it returns is mapped back.
 */

/** svc tool name -> the convention's name. */
const TOOL_NAMES: Readonly<Record<string, string>> = {
  run_command: "Bash",
  file_read: "Read",
  file_write: "Write",
  file_edit: "Edit",
  glob: "Glob",
  grep: "Grep",
  web_fetch: "WebFetch",
  web_search: "WebSearch",
  delegate: "Task",
};

/** Per svc tool: svc argument -> the convention's argument. */
const ARG_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  file_read: { path: "file_path" },
  file_write: { path: "file_path" },
  file_edit: { path: "file_path", old: "old_string", new: "new_string" },
  delegate: { type: "subagent_type", task: "prompt" },
};

/**
 * The convention's name of a tool: the table's, `mcp__<server>__<tool>` for a tool an MCP server
 * gave (`<prefix>.<tool>` of category mcp), else svc's own name.
 */
export function hookToolName(tool: { name: string; category: string }): string {
  if (Object.hasOwn(TOOL_NAMES, tool.name)) return TOOL_NAMES[tool.name];
  const dot = tool.name.indexOf(".");
  if (tool.category === "mcp" && dot > 0) {
    return `mcp__${tool.name.slice(0, dot)}__${tool.name.slice(dot + 1)}`;
  }
  return tool.name;
}

/** Both names a matcher is tested against: svc's and the convention's. */
export function matchNames(tool: { name: string; category: string }): string[] {
  const other = hookToolName(tool);
  return other === tool.name ? [tool.name] : [tool.name, other];
}

/** svc's arguments as the convention's `tool_input` (unmapped arguments keep their names). */
export function hookToolInput(
  tool: string,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const names = Object.hasOwn(ARG_NAMES, tool) ? ARG_NAMES[tool] : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    out[Object.hasOwn(names, key) ? names[key] : key] = value;
  }
  return out;
}

/** A hook's `updatedInput` in svc's argument names (svc's own names are accepted too). */
export function svcToolArgs(
  tool: string,
  input: Record<string, unknown>,
): Record<string, unknown> {
  const names = Object.hasOwn(ARG_NAMES, tool) ? ARG_NAMES[tool] : {};
  const back = new Map(Object.entries(names).map(([svc, theirs]) => [theirs, svc]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) out[back.get(key) ?? key] = value;
  return out;
}
