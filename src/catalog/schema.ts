/**
 * The file formats of the catalogs. `types.json` and `teams.json` each hold one JSON object keyed
 * by entry name; every field of an entry is optional in a file, because a higher layer may change
 * a single field of an entry a lower layer defines. Entries are checked one by one, so one broken
 * entry does not hide the others.
 */
import * as z from "zod";
import { ToolPermissionSchema } from "../config/schema.ts";

import { NAME_PATTERN, NAME_RULE } from "./names.ts";

export { NAME_PATTERN, NAME_RULE } from "./names.ts";

const name = z.string().regex(NAME_PATTERN, NAME_RULE);

/** Category actions of a type: the config's categories without `bash_allow`. */
export const TypePermissionSchema = ToolPermissionSchema.omit({ bash_allow: true });

/** One entry of `types.json` (the key is the type's name). */
export const TypeEntrySchema = z.strictObject({
  system_prompt: z.string().trim().min(1).optional(),
  model: z.string().trim().min(1).optional(),
  tool_permission: TypePermissionSchema.optional(),
  tools_deny: z.array(z.string().min(1)).optional(),
  skills: z.array(name).optional(),
  description: z.string().optional(),
});
export type TypeEntry = z.infer<typeof TypeEntrySchema>;

/** A stage: a type name (shorthand) or an object with `type` and optional fields. */
export const StageSchema = z.union([
  name,
  z.strictObject({
    type: name,
    mode: z.enum(["plan", "build"]).optional(),
    task_hint: z.string().optional(),
    handoff_note: z.string().optional(),
  }),
]);

/** One entry of `teams.json` (the key is the team's name). */
export const TeamEntrySchema = z.strictObject({
  stages: z.array(StageSchema).min(1).optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
});
export type TeamEntry = z.infer<typeof TeamEntrySchema>;

/** A skill registered by a plugin. */
export const PluginSkillSchema = z.object({
  name,
  content: z.string(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
});

/**
 * The front matter of a skill file. Unknown keys are allowed: SKILL.md files written for other
 * agent tools carry keys such as `license` or `allowed-tools` that svc does not use.
 */
export const FrontMatterSchema = z.looseObject({
  name: z.string().optional(),
  description: z.string().optional(),
  tags: z.union([z.array(z.string()), z.string()]).optional(),
});

type Issue = z.core.$ZodIssue;

/**
 * The first problem zod found, as `field: message` (the message alone for the whole entry). In a
 * union (a stage is a name or an object) the branch that got furthest explains the problem.
 */
export function firstIssue(error: z.ZodError): string {
  const issue = explain(error.issues[0]);
  return `${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`;
}

function explain(issue: Issue): Issue {
  if (issue.code !== "invalid_union" || !issue.errors.length) return issue;
  const firsts = issue.errors.map((branch) => branch[0]).filter(Boolean);
  const wrongShape = (i: Issue) => i.code === "invalid_type" && i.path.length === 0;
  const inner = explain(firsts.find((i) => !wrongShape(i)) ?? firsts[0]);
  return { ...inner, path: [...issue.path, ...inner.path] };
}
