/**
 * The request head a sandboxed client sends svc's network proxy, read strictly: a CONNECT to an
 * authority (`host:port`) or an absolute `http://` URI, CRLF line ends, printable ASCII only, one
 * Host header that agrees with the target. Anything else is refused, never guessed at.
 */
import { standardHost } from "./domains.ts";

/** A request the proxy may pass on once its host is allowed. */
export interface ProxyRequest {
  /** CONNECT opens a tunnel; any other method is forwarded as one HTTP request. */
  tunnel: boolean;
  /** The standard host (domains.ts), IPv6 without brackets. */
  host: string;
  port: number;
  /** For a forwarded request: the head to send the target (origin-form, `Connection: close`). */
  head?: string;
  /** For a forwarded request: its absolute URI, for an upstream proxy (upstream.ts). */
  uri?: string;
}

/** A request, or the status and text it is refused with. */
export type ParsedRequest = { ok: true; request: ProxyRequest } | {
  ok: false;
  status: 400;
  message: string;
};

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PRINTABLE = /^[\t\x20-\x7e]*$/;
/** Headers about the hop to the proxy, never passed on. */
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
]);

/** Parses the head (request line and headers, without the blank line) of one request. */
export function parseProxyRequest(head: string): ParsedRequest {
  const lines = head.split("\r\n");
  if (lines.some((line) => !PRINTABLE.test(line))) {
    return refuse("the request head holds bare line feeds or non-ASCII bytes");
  }
  const parts = lines[0].split(" ");
  if (parts.length !== 3 || !TOKEN.test(parts[0]) || !/^HTTP\/1\.[01]$/.test(parts[2])) {
    return refuse("not an HTTP/1.x request line");
  }
  const [method, target, version] = parts;
  const headers = parseHeaders(lines.slice(1));
  if (typeof headers === "string") return refuse(headers);
  const hosts = headers.filter(([name]) => name === "host");
  if (hosts.length > 1) return refuse("more than one Host header");
  const tunnel = method === "CONNECT";
  const parsed = tunnel ? authority(target, undefined) : absoluteUri(target);
  if (typeof parsed === "string") return refuse(parsed);
  if (hosts.length === 1 && !sameTarget(hosts[0][1], parsed, tunnel ? 443 : 80)) {
    return refuse("the Host header does not match the request target");
  }
  const request: ProxyRequest = { tunnel, host: parsed.host, port: parsed.port };
  if (!tunnel) {
    const smuggling = bodyFraming(headers);
    if (smuggling) return refuse(smuggling);
    const path = parsed.path ?? "/";
    request.head = forwardHead({ method, version, path, hostText: parsed.text }, headers);
    request.uri = `http://${parsed.text}${path}`;
  }
  return { ok: true, request };
}

type Header = [name: string, value: string];

function parseHeaders(lines: string[]): Header[] | string {
  const headers: Header[] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) return "a malformed or folded header line";
    headers.push([name.toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return headers;
}

/** Refuses both body framings at once, or several lengths: a request read two ways. */
function bodyFraming(headers: Header[]): string | undefined {
  const lengths = headers.filter(([name]) => name === "content-length");
  const chunked = headers.some(([name]) => name === "transfer-encoding");
  if (chunked && lengths.length) return "both Transfer-Encoding and Content-Length";
  if (lengths.length > 1) return "more than one Content-Length";
  if (lengths.length && !/^[0-9]+$/.test(lengths[0][1])) return "a malformed Content-Length";
  return undefined;
}

interface Target {
  host: string;
  port: number;
  /** The authority as the client wrote it, for the Host header sent on. */
  text: string;
  /** An absolute URI's path and query. */
  path?: string;
}

/** Whether a Host header names the target (no port: the scheme's default). */
function sameTarget(header: string, target: Target, defaultPort: number): boolean {
  const said = authority(header.trim(), defaultPort);
  return typeof said !== "string" && said.host === target.host && said.port === target.port;
}

/** `host:port` (port required unless `defaultPort`), IPv6 in brackets. */
function authority(text: string, defaultPort: number | undefined): Target | string {
  const match = /^(\[[^\]]*\]|[^:[\]]+)(?::([0-9]{1,5}))?$/.exec(text);
  if (!match) return `not a host:port authority: ${JSON.stringify(text.slice(0, 100))}`;
  const host = standardHost(match[1]);
  if (!host) return `not a standard host name or address: ${JSON.stringify(match[1])}`;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port === undefined) return "a CONNECT target needs a port";
  if (port < 1 || port > 65535) return `port ${port} is out of range`;
  return { host, port, text };
}

function absoluteUri(target: string): Target | string {
  const match = /^http:\/\/([^/?#]*)([^#]*)$/i.exec(target);
  if (!match) {
    return /^https:/i.test(target)
      ? "an https:// URI sent in the clear: use CONNECT for https"
      : "not an absolute http:// URI (is the client configured to use this proxy?)";
  }
  if (match[1].includes("@")) return "credentials in the request target";
  const found = authority(match[1], 80);
  if (typeof found === "string") return found;
  const rest = match[2];
  return { ...found, path: rest.startsWith("/") ? rest : `/${rest}` };
}

function forwardHead(
  line: { method: string; version: string; path: string; hostText: string },
  headers: Header[],
): string {
  const named = new Set(
    headers.filter(([name]) => name === "connection").flatMap(([, value]) =>
      value.split(",").map((token) => token.trim().toLowerCase())
    ),
  );
  const kept = headers.filter(([name]) =>
    !HOP_HEADERS.has(name) && !named.has(name) && name !== "host"
  );
  const out = [`${line.method} ${line.path} ${line.version}`, `Host: ${line.hostText}`];
  for (const [name, value] of kept) out.push(`${name}: ${value}`);
  out.push("Connection: close");
  return `${out.join("\r\n")}\r\n\r\n`;
}

function refuse(message: string): ParsedRequest {
  return { ok: false, status: 400, message: `svc sandbox proxy: ${message}` };
}
