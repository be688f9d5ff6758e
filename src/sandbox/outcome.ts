/**
 * What a resource limit did to a command, read from how it ended: a signal the kernel sends at a
 * limit (SIGXCPU, SIGXFSZ, SIGKILL past the CPU hard limit) or an allocation failure a program
 * reports once its memory limit is reached.
 */
import type { AppliedLimits } from "./limits.ts";
import { sizeText } from "../util/size.ts";

/** How a process ended, as process.ts reports it. */
export interface Ended {
  code: number;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
}

const OUT_OF_MEMORY =
  /xmalloc: cannot allocate|failed to allocate memory|Cannot allocate memory|out of memory|std::bad_alloc|MemoryError|memory exhausted/i;
const SIGXCPU = 24, SIGXFSZ = 25, SIGKILL = 9;

/** The line that names the limit a command reached, or undefined. */
export function limitReached(ended: Ended, limits: AppliedLimits): string | undefined {
  if (ended.timedOut || ended.cancelled) return undefined;
  const signal = ended.code > 128 ? ended.code - 128 : 0;
  if (signal === SIGXCPU) return `resource limit: CPU time (${limits.cpuSeconds} s) reached`;
  if (signal === SIGXFSZ) {
    return `resource limit: file size (${sizeText(limits.fileSize)}) reached`;
  }
  if (OUT_OF_MEMORY.test(ended.stderr)) {
    return `resource limit: memory (${sizeText(limits.memory)} per process) reached`;
  }
  if (signal === SIGKILL) {
    return `resource limit: killed (CPU time ${limits.cpuSeconds} s or memory ` +
      `${sizeText(limits.memory)} per process)`;
  }
  if (/Resource temporarily unavailable|retry: No child processes|fork: /i.test(ended.stderr)) {
    return `resource limit: processes (${limits.processes}) reached`;
  }
  return undefined;
}
