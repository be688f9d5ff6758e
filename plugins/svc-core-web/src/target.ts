/**
 * The SSRF guard: decides whether a URL may be fetched and which checked addresses the
 * connection is pinned to, so a second DNS answer (rebinding) can never redirect it inward.
 */
import { blockedReason, isIpLiteral } from "./address.ts";

/** Resolves a host name to its A and AAAA addresses; injectable for tests. */
export type Resolver = (host: string, signal: AbortSignal) => Promise<string[]>;

/** A URL that passed the guard and the addresses the connection may use. */
export type Target = { ok: true; url: URL; addresses: string[] } | { ok: false; error: string };

const LOCAL_SUFFIXES = [
  ".localhost",
  ".internal",
  ".local",
  ".lan",
  ".home.arpa",
  ".localdomain",
  ".intranet",
  ".corp",
];

/** Host name in comparable form: lower case, no brackets, no trailing dot. */
export function normalizeHost(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/**
 * True when fetching this URL needs the user's approval: its host is a blocked IP literal in any
 * notation, `localhost`, a single-label name, or a name under a local-only suffix (.internal, ...).
 */
export function needsApproval(url: URL): boolean {
  const host = normalizeHost(url.hostname);
  if (isIpLiteral(host)) return blockedReason(host) !== null;
  return host === "localhost" || !host.includes(".") ||
    LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

/** Looks a host up with `Deno.resolveDns` (A and AAAA); an empty list when neither answers. */
export const dnsResolver: Resolver = async (host, signal) => {
  const lookups = (["A", "AAAA"] as const).map((type) =>
    Deno.resolveDns(host, type, { signal }).catch(() => [] as string[])
  );
  return (await Promise.all(lookups)).flat();
};

/**
 * Checks one hop: scheme, literal addresses, local names and every resolved address. Hosts in
 * `allowHosts` (approved by the user, or a test server) may point at blocked addresses. Throws
 * only the signal's reason when it aborts during the lookup.
 */
export async function checkTarget(
  url: URL,
  options: { allowHosts?: readonly string[]; resolve?: Resolver; signal: AbortSignal },
): Promise<Target> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, error: `Only http and https URLs can be fetched, not ${url.protocol}` };
  }
  const host = normalizeHost(url.hostname);
  const allowed = (options.allowHosts ?? []).some((h) => normalizeHost(h) === host);
  if (isIpLiteral(host)) {
    const reason = blockedReason(host);
    if (reason && !allowed) return refuse(url, `${host} is ${article(reason)} ${reason} address`);
    return { ok: true, url, addresses: [host] };
  }
  if (host === "localhost" || host.endsWith(".localhost")) {
    if (!allowed) return refuse(url, `${host} is a loopback host name`);
    return { ok: true, url, addresses: ["127.0.0.1", "::1"] };
  }
  const addresses = await (options.resolve ?? dnsResolver)(host, options.signal);
  options.signal.throwIfAborted();
  if (addresses.length === 0) return { ok: false, error: `Could not resolve ${host}` };
  for (const address of addresses) {
    const reason = blockedReason(address);
    if (reason && !allowed) {
      return refuse(
        url,
        `${host} resolves to ${article(reason)} ${reason} address (${address}); a public name ` +
          "that points inward is refused as possible DNS rebinding",
      );
    }
  }
  return { ok: true, url, addresses };
}

function article(word: string): string {
  return /^[aeiouAEIOU]/.test(word) ? "an" : "a";
}

function refuse(url: URL, why: string): Target {
  return {
    ok: false,
    error: `Refused to fetch ${url.href}: ${why}. Loopback, private and link-local hosts are ` +
      "fetched only when given directly as url by IP address or local name, with the user's approval",
  };
}
