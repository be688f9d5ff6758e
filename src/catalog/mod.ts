/** The agent catalogs: agent types, teams and skills of a worktree, merged from four layers. */
export type { AgentType, Catalog, Layer, Skill, Stage, Team } from "./types.ts";
export { type CatalogOptions, loadCatalog } from "./load.ts";
export { BUNDLED_TYPES } from "./bundled_types.ts";
export { BUNDLED_TEAMS } from "./bundled_teams.ts";
export { CATALOG_MAX_BYTES } from "./read.ts";
export { SKILL_MAX_BYTES, SKILLS_MAX_PER_FOLDER } from "./skills.ts";
export { NAME_PATTERN } from "./names.ts";
