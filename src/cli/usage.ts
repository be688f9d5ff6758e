import { UsageError } from "../shared/usage_error.ts";

/** A command line that cannot be run as given; the command exits with USAGE_EXIT. */
export { UsageError };

/** Exit code of every usage error: an unknown flag, a missing or extra argument, flags in conflict. */
export const USAGE_EXIT = 2;

/** The exit code for an error an action threw: USAGE_EXIT for a UsageError, else 1. */
export function exitCodeOf(err: unknown): number {
  return err instanceof UsageError ? USAGE_EXIT : 1;
}
