export { decide, DEFAULT_ACTIONS, isOffered } from "./evaluate.ts";
export type { Decision, PolicyInput } from "./evaluate.ts";
export { pointsOutside, touchesControlFiles } from "./scope.ts";
