/**
 * Scheduled, human-gated jobs: the register `.svc/jobs.json`, schedules, this user's approvals,
 * the state machine, the runner, the daemon and the views the CLI prints (docs/jobs.md).
 */
export { approvalsPath, type Grant } from "./approvals.ts";
export { type DaemonOptions, DEFAULT_TICK_SECONDS, runDaemon } from "./daemon.ts";
export { addJob, approve, disable, enable, reject, remove } from "./manage.ts";
export { readRegister, RegisterError, registerPath, updateJob } from "./register.ts";
export { jobOverrides } from "./overrides.ts";
export { runJob, type RunRefused, type RunReport } from "./runner.ts";
export { cronProblem, describeSchedule, nextRunAfter, parseAt } from "./schedule.ts";
export {
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  type Job,
  JOB_NAME,
  JOB_NAME_RULE,
  type JobDefinition,
  type Schedule,
} from "./schema.ts";
export { type JobRow, jobRows, type JobsStatus, jobsStatus, runningDaemon } from "./status.ts";
export {
  daemonLockPath,
  defaultTaskFile,
  ensureTaskFile,
  memoryPath,
  storedTaskFile,
  taskFilePath,
} from "./task.ts";
export { systemdUnit, unitName } from "./unit.ts";
