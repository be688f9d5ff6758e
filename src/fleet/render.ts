/** The text of `svc fleet status`: the supervisor line, the agents' table and their notes. */
import { table } from "../util/text_table.ts";
import type { AgentReport, FleetReport } from "./status.ts";

/** The supervisor line: its pid and start, or how to start it. */
export function supervisorLine(report: FleetReport): string {
  return report.supervisor
    ? `supervisor: running (pid ${report.supervisor.pid}, since ${report.supervisor.started_at})`
    : "supervisor: not running (svc fleet up starts it)";
}

/** The status text after the supervisor line: the table, then each agent's error and trust note. */
export function agentsText(
  agents: AgentReport[],
  { rosterPath, now }: { rosterPath: string; now: number },
): string {
  if (agents.length === 0) {
    return `no agents in ${rosterPath}; svc fleet init or svc fleet add adds them`;
  }
  const lines = [agentsTable(agents, now)];
  for (const agent of agents) {
    const troubled = ["starting", "backoff", "crashed", "stopping"].includes(agent.state);
    if (agent.last_error && troubled) lines.push(`${agent.name}: ${agent.last_error}`);
    if (!agent.trusted) {
      lines.push(
        `${agent.name}: folder not trusted, its .svc/config.json may only tighten the policy ` +
          `(svc trust ${agent.dir})`,
      );
    }
  }
  return lines.join("\n");
}

/** One row per agent: state, health, pid, port, restarts, last exit and next retry. */
export function agentsTable(agents: AgentReport[], now: number): string {
  const head = ["NAME", "STATE", "HEALTH", "PID", "PORT", "RESTARTS", "LAST EXIT", "NEXT RETRY"];
  return table(
    head,
    agents.map((a) => [
      a.name,
      a.state,
      a.health,
      a.pid === null ? "-" : String(a.pid),
      a.port === null ? "-" : String(a.port),
      a.max_restarts ? `${a.restarts}/${a.max_restarts}` : String(a.restarts),
      lastExit(a, now),
      a.next_retry
        ? `in ${Math.max(0, Math.ceil((Date.parse(a.next_retry) - now) / 1000))} s`
        : "-",
    ]),
  );
}

function lastExit(agent: AgentReport, now: number): string {
  const exit = agent.last_exit;
  if (!exit) return "-";
  const how = exit.signal ? exit.signal : exit.code === null ? "exited" : `code ${exit.code}`;
  const ago = Math.max(0, Math.round((now - Date.parse(exit.at)) / 1000));
  return `${how} (${ago} s ago)`;
}
