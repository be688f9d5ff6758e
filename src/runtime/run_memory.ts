/**
 * Run memory for front-ends (the jobs runner, `svc jobs show`): read, summarize and write it
 * without loading the runtime.
 */
export {
  oneLine,
  readRunMemory,
  summarizeRun,
  type SummaryModel,
  writeRunMemory,
} from "../engine/run_memory.ts";
