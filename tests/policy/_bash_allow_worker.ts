/// <reference lib="deno.worker" />
/** Decides one bash_allow question off the test's thread, so a regression that spins can be timed out. */
import { bashAllowed } from "../../src/policy/bash_allow.ts";

self.onmessage = (
  event: MessageEvent<{ command: string; prefixes: string[]; worktree: string }>,
) => {
  const { command, prefixes, worktree } = event.data;
  const start = performance.now();
  const verdict = bashAllowed(command, { prefixes, worktree });
  self.postMessage({ verdict, ms: performance.now() - start });
};
