/**
 * Every built-in slash command, in `/help` order: the REPL commands of the SPEC except `/jobs`,
 * which the CLI adds (`runRepl`'s extra commands: it renders the jobs front-end, which the REPL may
 * not import). `/agent`, `/spawn` and `/bookmark` are planned and absent.
 */
import type { Command } from "./slash_command.ts";
import { compact, config, exit, help, plugins, thinking, version } from "./commands_core.ts";
import { connect, model, models, provider } from "./commands_model.ts";
import { session } from "./commands_session.ts";
import { fork, resume } from "./commands_resume.ts";
import { skill, team, type } from "./commands_catalog.ts";
import { mcp, tool } from "./commands_tools.ts";
import { undo } from "./commands_undo.ts";
import { diff } from "./commands_diff.ts";

export const BUILTIN_COMMANDS: readonly Command[] = [
  help,
  connect,
  model,
  models,
  provider,
  session,
  resume,
  fork,
  config,
  thinking,
  tool,
  plugins,
  mcp,
  type,
  skill,
  team,
  compact,
  undo,
  diff,
  version,
  exit,
];
