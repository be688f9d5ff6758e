/** `YYYYMMDD_HHMMSS` in UTC. */
export function stamp(date = new Date()): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10).replaceAll("-", "")}_${iso.slice(11, 19).replaceAll(":", "")}`;
}

/** Lowercase slug of free text: letters, digits and single dashes, at most `max` characters. */
export function slugify(text: string, max = 40): string {
  const lower = text.toLowerCase();
  // Accents come off through Unicode decomposition, whose tables cost about a millisecond to
  // load; printable ASCII has none to take off.
  const plain = /^[ -~]*$/.test(lower) ? lower : lower.normalize("NFKD").replace(/\p{M}/gu, "");
  return plain.replace(/[^a-z0-9]+/g, "-").replace(/^-+/, "").slice(0, max).replace(/-+$/, "");
}

/** Interactive session name before and after the first user message names it. */
export function interactiveName(date = new Date(), firstMessage?: string): string {
  const slug = firstMessage ? slugify(firstMessage) : "";
  return slug ? `ses_${stamp(date)}_${slug}` : `ses_${stamp(date)}`;
}

/** Sub-agent session name: `sub_<timestamp>_<parent>` with the parent part sanitized. */
export function subAgentName(parent: string, date = new Date()): string {
  const suffix = parent.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 60) || "root";
  return `sub_${stamp(date)}_${suffix}`;
}

/** Job session name: `job_<YYYYMMDD>_<HHMMSS>_<job>`. */
export function jobSessionName(job: string, date = new Date()): string {
  return `job_${stamp(date)}_${job.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 60)}`;
}

const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/** Validates a user-supplied session name (it becomes a file name); returns an error or null. */
export function checkSessionName(name: string): string | null {
  if (!SAFE_NAME.test(name) || name.includes("..")) {
    return "session name must be 1-128 characters of letters, digits, _ . - and not start with . or contain ..";
  }
  return null;
}
