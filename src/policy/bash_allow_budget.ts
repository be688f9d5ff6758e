/**
 * Limits on the work of deciding one command, so that a crafted command cannot stall svc: every
 * path resolution, folder listing and brace alternative spends steps, and a command that needs
 * more than the budget is denied with a reason that says so.
 */

/** Longest command that is analysed at all. */
export const MAX_COMMAND_CHARS = 32_768;
/** Longest single path that is resolved (PATH_MAX on Linux). */
export const MAX_PATH_CHARS = 4_096;
/** Steps one decision may spend: a resolved path costs its segments, a listing 1 per 16 names. */
export const MAX_STEPS = 20_000;
/** Distinct folders a chain of `cd` commands may leave later segments in. */
export const MAX_FOLDERS = 32;
/** Alternatives the brace lists of one word may expand to. */
export const MAX_ALTERNATIVES = 256;

/** Thrown when a decision would exceed a limit; the message says which. */
export class BudgetExceeded extends Error {}

/** The steps left for one decision. */
export class Budget {
  #left = MAX_STEPS;

  /** Spends `steps`; throws `BudgetExceeded` once the budget is gone. */
  spend(steps: number): void {
    this.#left -= steps;
    if (this.#left < 0) {
      throw new BudgetExceeded(`checking it needs more than ${MAX_STEPS} steps`);
    }
  }
}
