/**
 * Job approvals belong to the person, not to the repository. A grant is kept in the user's config
 * folder (`~/.config/svc/job_approvals.json`, mode 0600), keyed by canonical worktree and job name,
 * and bound to a hash of the job's definition, the worktree and this user's id. The register's
 * `state` never authorizes a run by itself: a `.svc/jobs.json` that arrives with a cloned
 * repository (or is edited after approval) has no matching grant, so it reads as proposed.
 */
import { join } from "../util/posix_path.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { changeGrants, readGrantFile } from "../util/grant_file.ts";
import { sha256Hex } from "../util/sha256.ts";
import { definitionOf, type JobDefinition } from "./schema.ts";

/** One person's approval of one job definition. */
export interface Grant {
  /** sha256 of the definition, the worktree and the user id (definitionHash). */
  hash: string;
  /** The user id that approved (null where the system has none). */
  uid: number | null;
  approved_at: string;
  /** Armed for exactly one run (require_approval); consumed when that run starts. */
  once: boolean;
}

/** What a job's grant means now. */
export type Approval =
  | { kind: "approved"; grant: Grant }
  | { kind: "armed"; grant: Grant }
  | { kind: "none" }
  | { kind: "changed"; grant: Grant };

/** `~/.config/svc/job_approvals.json`. */
export function approvalsPath(): string {
  return join(globalConfigDir(), "job_approvals.json");
}

function uid(): number | null {
  try {
    return Deno.uid();
  } catch {
    return null;
  }
}

/** Key-sorted JSON, so equal definitions hash equally whatever order their keys have. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * What a job's agent type resolves to in `worktree` now: the type's prompt with its skills, its
 * model, tool permissions (and an untrusted worktree's tightenings) and tools_deny, merged from
 * the bundled, global and local layers as the worktree's trust has them; `{unknown}` when the
 * files define no such type (a plugin's type is bound by its name only). Undefined without a type.
 */
export async function resolvedType(
  job: JobDefinition,
  worktree: string,
): Promise<Record<string, unknown> | undefined> {
  if (!job.type) return undefined;
  // Concurrent looks (jobs list on many jobs of one type) share one catalog load; each new look
  // loads again, so a type changed meanwhile is always seen.
  const key = `${worktree}\0${job.type}`;
  const pending = loadingTypes.get(key) ?? loadType(worktree, job.type);
  loadingTypes.set(key, pending);
  try {
    return await pending;
  } finally {
    if (loadingTypes.get(key) === pending) loadingTypes.delete(key);
  }
}

const loadingTypes = new Map<string, Promise<Record<string, unknown>>>();

async function loadType(worktree: string, name: string): Promise<Record<string, unknown>> {
  // Loaded only for a typed job, so `jobs list` and untyped jobs stay light.
  const [{ agentTypeMaterial }, { isTrusted }] = await Promise.all([
    import("../runtime/agent_type.ts"),
    import("../config/trust.ts"),
  ]);
  return await agentTypeMaterial(worktree, { name, trusted: await isTrusted(worktree) });
}

/**
 * The hash an approval is bound to: the job's definition (prompt, task file path, schedule,
 * retries, timeout, overrides, tool_permission, approve_model, require_approval, session), what
 * its agent type resolves to (resolvedType: loosening `.svc/types.json` after an approval needs a
 * new one), the canonical worktree and this user's id.
 */
export async function definitionHash(job: JobDefinition, worktree: string): Promise<string> {
  const material = canonicalJson({
    definition: definitionOf(job),
    type: await resolvedType(job, worktree),
    worktree,
    uid: uid(),
  });
  return await sha256Hex(material);
}

function isGrant(value: unknown): value is Grant {
  const g = value as Grant;
  return Boolean(g) && typeof g.hash === "string" && typeof g.once === "boolean";
}

/** Every grant of `worktree`, by job name (a corrupt or missing file grants nothing). */
export async function loadGrants(worktree: string): Promise<Map<string, Grant>> {
  const entries = (await readGrantFile<Grant>(approvalsPath()))[worktree] ?? {};
  return new Map(Object.entries(entries).filter(([, g]) => isGrant(g)));
}

/** What `grant` means for `job` now: approved, armed for one run, none, or for another definition. */
export async function approvalOf(
  job: JobDefinition,
  { worktree, grant }: { worktree: string; grant: Grant | undefined },
): Promise<Approval> {
  if (!grant) return { kind: "none" };
  const current = uid();
  if (grant.hash !== await definitionHash(job, worktree) || grant.uid !== current) {
    return { kind: "changed", grant };
  }
  return grant.once ? { kind: "armed", grant } : { kind: "approved", grant };
}

function change(worktree: string, fn: (jobs: Record<string, Grant>) => void): Promise<void> {
  return changeGrants(approvalsPath(), { worktree, fn });
}

/** Records this user's approval of `job`'s current definition (`once`: one run only). */
export async function grant(
  worktree: string,
  job: JobDefinition,
  options: { once: boolean; now?: Date },
): Promise<Grant> {
  const record: Grant = {
    hash: await definitionHash(job, worktree),
    uid: uid(),
    approved_at: (options.now ?? new Date()).toISOString(),
    once: options.once,
  };
  await change(worktree, (jobs) => {
    jobs[job.name] = record;
  });
  return record;
}

/** Clears the grant of a job (reject, remove, a one-run grant used). */
export async function revoke(worktree: string, name: string): Promise<void> {
  await change(worktree, (jobs) => {
    delete jobs[name];
  });
}

/**
 * Uses a one-run grant: removes it when it is still the one given (same hash), under the file's
 * lock, and says whether it was there. Two processes racing for it: exactly one gets true.
 */
export async function consumeOnce(
  worktree: string,
  { name, hash }: { name: string; hash: string },
): Promise<boolean> {
  let used = false;
  await change(worktree, (jobs) => {
    const current = jobs[name];
    if (current && current.once && current.hash === hash) {
      delete jobs[name];
      used = true;
    }
  });
  return used;
}
