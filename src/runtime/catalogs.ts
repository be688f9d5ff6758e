/**
 * The catalog's text (a kind's table, one entry in full) and the local skill and team edits, for
 * front-ends that load them lazily (the REPL's `/type`, `/skill`, `/team`): importing this module
 * loads those two catalog files and nothing more, where src/runtime/mod.ts would load the whole
 * runtime.
 */
export { createSkill, createTeam, removeSkill, removeTeam } from "../catalog/edit.ts";
export { type CatalogKind, catalogTable, ONE, showEntry } from "../catalog/format.ts";
