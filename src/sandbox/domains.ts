/**
 * Which hosts a sandboxed command may reach through svc's network proxy: a host name or IP literal
 * in its one standard spelling, matched against `sandbox.network.allowedDomains` and
 * `deniedDomains` (denied wins; `*.example.com` matches subdomains only; `*` matches any host).
 */

/** Whether a host may be reached, and if not the line that says which setting to change. */
export type HostVerdict = { ok: true } | { ok: false; reason: string };

/** The domain lists of one command. */
export interface DomainLists {
  allowed: readonly string[];
  denied: readonly string[];
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const IPV4_PART = /^(?:0|[1-9][0-9]{0,2})$/;
const IPV6 = /^[0-9a-f:.]+$/;

/**
 * A host in its standard form (lower case, no trailing dot, IPv6 without brackets), or undefined
 * when it is not a DNS name, a dotted-quad IPv4 address or an IPv6 literal: spellings such as
 * `2130706433`, `127.1` or `0x7f.0.0.1`, which the system resolver would turn into addresses no
 * list names, are refused.
 */
export function standardHost(host: string): string | undefined {
  const lower = host.toLowerCase();
  if (lower.startsWith("[")) {
    if (!lower.endsWith("]")) return undefined;
    const inner = lower.slice(1, -1);
    if (!IPV6.test(inner) || !inner.includes(":")) return undefined;
    try {
      return new URL(`http://[${inner}]/`).hostname.slice(1, -1);
    } catch {
      return undefined;
    }
  }
  const name = lower.endsWith(".") ? lower.slice(0, -1) : lower;
  if (!name || name.length > 253) return undefined;
  const labels = name.split(".");
  if (!labels.every((label) => LABEL.test(label))) return undefined;
  if (!/^[0-9]+$/.test(labels.at(-1)!) && !/^0x/.test(labels.at(-1)!)) return name;
  // Looks like an IPv4 address: only the four-part decimal form is accepted.
  const ok = labels.length === 4 &&
    labels.every((part) => IPV4_PART.test(part) && Number(part) <= 255);
  return ok ? name : undefined;
}

/** Whether `host` (a standard host) matches one list entry. */
export function hostMatches(host: string, pattern: string): boolean {
  const entry = normalizePattern(pattern);
  if (entry === "*") return true;
  if (entry.startsWith("*.")) return host.endsWith(entry.slice(1));
  return host === entry;
}

/** Whether a command may reach `host` (a standard host) under `lists`. */
export function hostVerdict(host: string, lists: DomainLists): HostVerdict {
  const denied = lists.denied.find((pattern) => hostMatches(host, pattern));
  if (denied !== undefined) {
    return {
      ok: false,
      reason: `svc sandbox: ${host} is blocked by sandbox.network.deniedDomains ("${denied}"); ` +
        `remove it there to allow this host`,
    };
  }
  if (lists.allowed.some((pattern) => hostMatches(host, pattern))) return { ok: true };
  return {
    ok: false,
    reason: `svc sandbox: ${host} is not in sandbox.network.allowedDomains; add it there ` +
      `(a host name, *.domain or *) to allow this host`,
  };
}

function normalizePattern(pattern: string): string {
  const lower = pattern.trim().toLowerCase();
  return lower.length > 1 && lower.endsWith(".") ? lower.slice(0, -1) : lower;
}
