/**
 * svc's own proxy settings for the domain proxy's connections: on a network that reaches the
 * internet only through a proxy (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY in svc's environment, minus
 * NO_PROXY), an allowed host is reached through that proxy instead of directly: a CONNECT tunnel
 * for the sandbox's CONNECT requests, and the absolute-form request for plain `http://` ones.
 * The allow and deny lists are applied before, to the host the sandboxed client named.
 */

/** The proxy to reach a target through, with its `Proxy-Authorization` value when it has one. */
export interface Upstream {
  hostname: string;
  port: number;
  authorization?: string;
}

/**
 * The upstream proxy for `host` (a tunnel uses the https one, a plain request the http one), or
 * undefined to connect directly: no proxy set, `NO_PROXY` names the host, or a setting svc cannot
 * use (not an `http://` proxy).
 */
export function upstreamFor(
  target: { host: string; tunnel: boolean },
  env: Record<string, string> = Deno.env.toObject(),
): Upstream | undefined {
  const get = (name: string) => env[name] || env[name.toLowerCase()] || "";
  const setting = (target.tunnel ? get("HTTPS_PROXY") : get("HTTP_PROXY")) || get("ALL_PROXY");
  if (!setting || bypassed(target.host, get("NO_PROXY"))) return undefined;
  const url = URL.parse(setting.includes("://") ? setting : `http://${setting}`);
  if (!url || url.protocol !== "http:" || !url.hostname) return undefined;
  const upstream: Upstream = {
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 80),
  };
  if (url.username) {
    const user = decodeURIComponent(url.username), pass = decodeURIComponent(url.password);
    upstream.authorization = `Basic ${btoa(`${user}:${pass}`)}`;
  }
  return upstream;
}

/**
 * Whether `host` is reached directly: loopback always (no proxy can reach this machine's own
 * loopback), and what NO_PROXY (`*`, or comma-separated names and `.suffix`es) exempts.
 */
function bypassed(host: string, noProxy: string): boolean {
  if (host === "localhost" || host === "::1" || /^127\./.test(host)) return true;
  for (const raw of noProxy.split(",")) {
    const entry = raw.trim().toLowerCase().replace(/:\d+$/, "");
    if (!entry) continue;
    if (entry === "*") return true;
    const name = entry.replace(/^\*?\./, "");
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The head of a CONNECT to `host:port` through `upstream`. */
export function connectHead(
  target: { host: string; port: number },
  upstream: Upstream,
): string {
  const { host, port } = target;
  const authority = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  if (upstream.authorization) lines.push(`Proxy-Authorization: ${upstream.authorization}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** A forwarded request's head for `upstream`: the absolute URI, and its credentials. */
export function proxiedHead(
  request: { head: string; uri: string },
  upstream: Upstream,
): string {
  const { head, uri } = request;
  const end = head.indexOf("\r\n");
  const [method, , version] = head.slice(0, end).split(" ");
  const auth = upstream.authorization ? `\r\nProxy-Authorization: ${upstream.authorization}` : "";
  return `${method} ${uri} ${version}${auth}${head.slice(end)}`;
}
