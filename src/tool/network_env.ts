/**
 * The network and certificate settings a program svc starts with a cleared environment still
 * takes from svc's own. A stdio MCP server is often `npx -y <package>` or `deno run npm:<package>`:
 * it downloads itself on first use, and behind a proxy (or a TLS-intercepting one whose CA is
 * trusted only through these variables) it cannot without them. They are not secrets of svc's;
 * API keys and svc's own variables are never among them.
 */
import { isSecretVariable } from "./shell.ts";

/**
 * The variables, one list (docs/mcp_client.md, "Server processes"). The proxies in both cases
 * (curl, Deno, npm and Python differ in which they read; ALL_PROXY is Deno's and curl's fallback
 * for every scheme); the extra CA certificates of Node (and Deno), OpenSSL's certificate file and
 * folder, and Deno's own certificate and CA-store settings.
 */
export const NETWORK_VARIABLES: readonly string[] = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
];

const UPPER = new Set(NETWORK_VARIABLES.map((name) => name.toUpperCase()));

/** The NETWORK_VARIABLES set (and not empty) in `from`, by default svc's environment. */
export function networkEnv(
  from: Record<string, string> = Deno.env.toObject(),
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of NETWORK_VARIABLES) {
    if (from[name]) out[name] = from[name];
  }
  return out;
}

/**
 * The environment of a program started with a cleared environment: `base` (a safe set such as
 * HOME and PATH), the network settings of `from` (svc's environment), then `own`, the variables
 * its configuration gives it. `own` wins: when it names a network variable in either case, svc's
 * value of that variable is not passed in either case (its `HTTPS_PROXY` replaces an inherited
 * `https_proxy` too), and an empty value there removes the variable. A proxy address with a
 * password in it (`http://user:secret@proxy:3128`) is not passed, as run_command does not pass it;
 * `own` can give it.
 */
export function withNetworkEnv(
  base: Record<string, string>,
  own: Record<string, string>,
  from: Record<string, string> = Deno.env.toObject(),
): Record<string, string> {
  const named = new Set(Object.keys(own).map((name) => name.toUpperCase()));
  const out = { ...base };
  for (const [name, value] of Object.entries(networkEnv(from))) {
    if (!named.has(name.toUpperCase()) && !isSecretVariable(name, value)) out[name] = value;
  }
  for (const [name, value] of Object.entries(own)) {
    if (value === "" && UPPER.has(name.toUpperCase())) delete out[name];
    else out[name] = value;
  }
  return out;
}
