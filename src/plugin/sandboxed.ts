/**
 * Loading a global or local plugin into its sandbox: the grant from its manifest, a folder check,
 * the Worker, and its registrations rebuilt on svc's side (tools and commands whose `run` posts
 * a message, checked plain data for the rest).
 */
import type { Candidate } from "./discover.ts";
import { folderProblem } from "./confine.ts";
import { grantFor, type PluginGrant } from "./permissions.ts";
import type { Registrations } from "./registrars.ts";
import { checkedData } from "./sandbox_data.ts";
import { PluginSandbox } from "./sandbox_host.ts";
import { sandboxedCommand, sandboxedTool } from "./sandbox_tools.ts";

/** A loaded sandboxed plugin, or why it is errored. */
export type SandboxedOutcome =
  | { registrations: Registrations; sandbox: PluginSandbox }
  | { error: string };

/** The grant of a candidate with a manifest in `worktree`, or why it has none. */
export function candidateGrant(
  c: Candidate,
  worktree: string,
): { ok: true; grant: PluginGrant } | { ok: false; error: string } {
  if (!c.manifest) return { ok: false, error: "no manifest" };
  return grantFor(c.manifest, { pluginDir: c.dir, worktree });
}

/** Starts `c` in a Worker with exactly its grant; never throws for a bad plugin. */
export async function activateSandboxed(
  c: Candidate,
  worktree: string,
  timeouts: { import: number; hook: number },
): Promise<SandboxedOutcome> {
  const granted = candidateGrant(c, worktree);
  if (!granted.ok) return { error: `Not loaded: ${granted.error}` };
  let problem: string | null;
  try {
    problem = await folderProblem(c.dir);
  } catch (err) {
    problem = `its folder cannot be read (${(err as Error).message})`;
  }
  if (problem) return { error: `Not loaded: ${problem}` };
  const started = await PluginSandbox.start({
    name: c.name,
    entryPath: c.entryPath!,
    grant: granted.grant,
    timeouts,
  });
  if (typeof started === "string") return { error: started };
  const { sandbox, registrations: data } = started;
  const channel = {
    callTool: sandbox.callTool.bind(sandbox),
    runCommand: sandbox.runCommand.bind(sandbox),
  };
  try {
    const list = <T>(value: unknown) => (Array.isArray(value) ? value as T[] : []);
    const tools = list<Parameters<typeof sandboxedTool>[0]>(data?.tools).map((tool) => {
      try {
        return sandboxedTool(tool, channel);
      } catch (err) {
        throw new Error(`register_tools failed: ${(err as Error).message}`);
      }
    });
    const commands = list<Parameters<typeof sandboxedCommand>[0]>(data?.commands).map((cmd) => {
      try {
        return sandboxedCommand(cmd, channel);
      } catch (err) {
        throw new Error(`register_commands failed: ${(err as Error).message}`);
      }
    });
    return { registrations: { ...checkedData(data), tools, commands }, sandbox };
  } catch (err) {
    sandbox.stop("errored");
    return { error: (err as Error).message };
  }
}
