/**
 * The manifest.json schema, in a module of its own: it builds zod objects when imported, which
 * svc does only for a manifest it has not found valid before (manifest.ts).
 */
import * as z from "zod";
import { PermissionsSchema } from "./permissions.ts";

/** The manifest.json schema. Unknown keys are ignored so newer manifests stay loadable. */
export const ManifestSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, {
    message:
      "must be 1-64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit",
  }),
  version: z.string().max(100),
  description: z.string().max(1000).default(""),
  svc_version: z.string().max(200),
  runtime: z.object({ deno: z.string().max(200).optional() }).default({}),
  entry: z.string().min(1).max(200).default("mod.ts").refine(
    (value) => !/^[a-z][a-z0-9+.-]*:/i.test(value) && !value.includes("\0"),
    { message: "must be a relative file path inside the plugin" },
  ),
  requires: z.array(
    z.string().max(300).regex(/^(npm:|jsr:|https:\/\/)\S+$/, {
      message: "must be an npm:, jsr: or https:// specifier",
    }),
  ).max(100).default([]),
  /** What a global or local plugin's sandbox grants (see permissions.ts). */
  permissions: PermissionsSchema,
  /**
   * The hooks register something else from run to run (tools found on a server, say): run them
   * at every start instead of starting from remembered registrations (see plugin_cache.ts).
   */
  dynamic_registrations: z.boolean().default(false),
});

/** A validated manifest. */
export type Manifest = z.infer<typeof ManifestSchema>;

/** A manifest checked: the validated manifest, or the first problem as `"<path>" <message>`. */
export function checkManifest(
  raw: unknown,
): { ok: true; manifest: Manifest } | { ok: false; error: string } {
  const parsed = ManifestSchema.safeParse(raw);
  if (parsed.success) return { ok: true, manifest: parsed.data };
  const issue = specific(parsed.error.issues[0]);
  const where = issue.path.length ? `"${issue.path.join(".")}" ` : "";
  return { ok: false, error: `${where}${issue.message}` };
}

/**
 * The issue to report: inside a union (the two forms of `permissions`), the option's issue that
 * got furthest into the value, unless every option failed on the value's type.
 */
function specific(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code !== "invalid_union") return issue;
  const firsts = issue.errors.map((list) => list[0]).filter(Boolean);
  firsts.sort((a, b) => b.path.length - a.path.length);
  const best = firsts[0];
  if (!best || (best.path.length === 0 && best.code === "invalid_type")) return issue;
  return specific({ ...best, path: [...issue.path, ...best.path] } as z.core.$ZodIssue);
}
