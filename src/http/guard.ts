import { fail } from "./reply.ts";

/** Where the server listens and the bearer-token check, if any. */
export interface GuardOptions {
  /** The bind address as given (127.0.0.1, ::1, localhost, 0.0.0.0, ...). */
  hostname: string;
  /** The bound port (after binding, so `--port 0` is resolved). */
  port: number;
  /** Checks an Authorization header value; absent means no token is configured. */
  checkToken?: (authorization: string | null) => boolean;
  /** Paths answered without a token (probes); Host and Origin checks still apply. */
  open?: readonly string[];
}

/** Whether a bind address or Host name is a loopback name: localhost, 127.0.0.0/8 or ::1. */
export function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return name === "localhost" || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name);
}

/** The Host header values accepted when bound to loopback: loopback names with the bound port. */
export function loopbackHosts(port: number): Set<string> {
  const names = ["127.0.0.1", "localhost", "[::1]"];
  const hosts = new Set(names.map((n) => `${n}:${port}`));
  if (port === 80) { for (const n of names) hosts.add(n); }
  return hosts;
}

/**
 * Refuses a request before routing, or returns null to let it through. Loopback is not a security
 * boundary: a foreign Host (DNS rebinding) or a foreign, `null` or cross-site browser origin is
 * refused with 403; a missing or wrong bearer token with 401.
 */
export function createGuard(
  options: GuardOptions,
): (request: Request, path: string) => Response | null {
  const loopback = isLoopback(options.hostname);
  const hosts = loopbackHosts(options.port);
  const open = new Set(options.open ?? []);
  return (request, path) => {
    const host = (request.headers.get("host") ?? new URL(request.url).host).toLowerCase();
    if (loopback && !hosts.has(host)) {
      return fail(403, "forbidden: Host is not a loopback name for this port");
    }
    const origin = request.headers.get("origin");
    if (origin !== null && origin.toLowerCase() !== `http://${host}`) {
      return fail(403, "forbidden: cross-origin requests are refused");
    }
    const site = request.headers.get("sec-fetch-site");
    if (site !== null && site !== "same-origin" && site !== "none") {
      return fail(403, "forbidden: cross-site requests are refused");
    }
    if (
      options.checkToken && !open.has(path) &&
      !options.checkToken(request.headers.get("authorization"))
    ) {
      return fail(401, "unauthorized: a valid bearer token is required", {
        "www-authenticate": 'Bearer realm="svc"',
      });
    }
    return null;
  };
}
