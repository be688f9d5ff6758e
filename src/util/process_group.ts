/** Signals to a process group: the children svc starts in groups of their own (fleet agents, MCP servers). */

/** Sends `signal` to the process group led by `pid`; false when there is no such group. */
export function signalGroup(pid: number, signal: Deno.Signal): boolean {
  try {
    Deno.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
