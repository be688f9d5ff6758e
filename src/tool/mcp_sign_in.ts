/**
 * Signing in to an MCP server over HTTP (`svc mcp login`, `/mcp login`): the official SDK's
 * `auth()` does the authorization (discovery, registration, PKCE, the resource parameter, the
 * token request); this drives it: a loopback listener for the redirect, the browser (or the
 * address printed), the state check, and a bound on the time the person may take.
 */
import { listenForRedirect, type RedirectParams } from "./loopback_redirect.ts";
import { openBrowser } from "./browser_open.ts";
import { type OAuthSettings, SvcOAuthProvider } from "./mcp_oauth_provider.ts";
import { changeGrant, readGrant } from "./mcp_oauth_store.ts";
import type { Config } from "../config/schema.ts";

/** The parts of an `mcp.servers` entry sign-in uses. */
export interface SignInEntry {
  name: string;
  url: string;
  oauth?: OAuthSettings;
}

/**
 * The http entry named `name` among `servers`, as sign-in takes it; throws, saying why, when
 * there is none or it cannot sign in (a stdio server, one that sends its own Authorization).
 */
export function signInEntry(
  servers: readonly Config["mcp.servers"][number][],
  name: string,
): SignInEntry {
  const entry = servers.find((server) => server.name === name);
  if (!entry) {
    const names = servers.map((server) => server.name).join(", ") || "none";
    throw new Error(`no MCP server named ${name} in mcp.servers (configured: ${names})`);
  }
  if (entry.transport !== "http" || !entry.url) {
    throw new Error(`${name} is a stdio server: only http servers sign in`);
  }
  if (Object.keys(entry.headers).some((header) => header.toLowerCase() === "authorization")) {
    throw new Error(
      `${name} sends its own Authorization header (headers in its entry), so svc does not ` +
        "sign in to it; remove that header to use OAuth",
    );
  }
  if (entry.oauth?.grant === "client_credentials") {
    throw new Error(
      `${name} is a machine client (oauth.grant "client_credentials"): it signs in by itself ` +
        `when it connects; run mcp_connect ${name}`,
    );
  }
  return { name: entry.name, url: entry.url, ...(entry.oauth ? { oauth: entry.oauth } : {}) };
}

/** Options of `signIn`. */
export interface SignInOptions {
  /** Shows a line to the person (the address to open, progress). */
  print(line: string): void;
  /** How long the person may take in the browser; 5 minutes by default. */
  timeoutMs?: number;
  /** The environment the browser is chosen from (`BROWSER`, `DISPLAY`). */
  env: Record<string, string | undefined>;
  /** The folder of mcp_oauth.json (tests). */
  dir?: string;
  signal?: AbortSignal;
}

/** What a sign-in obtained, without the secrets. */
export interface SignInResult {
  server: string;
  issuer?: string;
  scope?: string;
  expires_in?: number;
  refreshable: boolean;
}

/** Signs in to `entry`'s server and stores the grant; throws with the reason when it cannot. */
export async function signIn(entry: SignInEntry, options: SignInOptions): Promise<SignInResult> {
  const { auth, computeScopeUnion, extractWWWAuthenticateParams } = await import(
    "@modelcontextprotocol/client"
  );
  const stored = await readGrant(entry.url, { dir: options.dir });
  const timeoutMs = options.timeoutMs ?? 300_000;
  const listener = listenForRedirect({
    port: stored?.port,
    timeoutMs,
    page: (params) =>
      params.get("error") || params.get("state") !== provider?.expectedState
        ? `svc: signing in to ${entry.name} failed. See the terminal.\n`
        : `svc: signed in to ${entry.name}. You can close this tab.\n`,
  });
  let provider: SvcOAuthProvider | undefined;
  const stop = () => void listener.close();
  options.signal?.addEventListener("abort", stop, { once: true });
  // Every request of the sign-in ends with it: the whole sign-in is bounded by the timeout.
  const bound = AbortSignal.any(
    [AbortSignal.timeout(timeoutMs), options.signal].filter((s) => s !== undefined),
  );
  const fetchFn = (url: string | URL, init?: RequestInit) =>
    fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, bound]) : bound });
  try {
    provider = await new SvcOAuthProvider({
      server: entry.name,
      url: entry.url,
      oauth: entry.oauth,
      redirectUrl: listener.url,
      dir: options.dir,
      open: (url) => Promise.resolve(sendToBrowser(url, entry.name, options)),
    }).load();
    // What the server asks for: its 401 names the resource metadata and the scope it wants.
    const challenge = await fetchFn(entry.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
    });
    const asked = challenge.status === 401 || challenge.status === 403
      ? extractWWWAuthenticateParams(challenge)
      : {};
    await challenge.body?.cancel();
    const common = {
      serverUrl: entry.url,
      fetchFn,
      resourceMetadataUrl: asked.resourceMetadataUrl,
      scope: entry.oauth?.scope ?? computeScopeUnion(provider.wantedScope, asked.scope),
    };
    const first = await auth(provider, { ...common, forceReauthorization: true });
    if (first === "REDIRECT") {
      const params = await listener.received;
      const code = checkRedirect(params, provider.expectedState);
      await auth(provider, {
        ...common,
        authorizationCode: code,
        iss: params.get("iss") ?? undefined,
      });
    }
    const tokens = provider.tokens();
    if (!tokens?.access_token) throw new Error("the authorization server issued no access token");
    return {
      server: entry.name,
      issuer: tokens.issuer,
      scope: tokens.scope,
      expires_in: tokens.expires_in,
      refreshable: Boolean(tokens.refresh_token),
    };
  } finally {
    options.signal?.removeEventListener("abort", stop);
    await listener.close();
  }
}

/** Forgets the grant of `url` (tokens and registered client); resolves with whether there was one. */
export async function signOut(url: string, options: { dir?: string } = {}): Promise<boolean> {
  return await changeGrant(url, { dir: options.dir, fn: () => undefined });
}

/** Opens the browser on the authorization address, and prints it either way. */
function sendToBrowser(url: URL, server: string, options: SignInOptions): void {
  const opened = openBrowser(url.href, options.env);
  options.print(
    opened
      ? `Opened your browser to sign in to ${server}. If it did not open, visit:\n  ${url.href}`
      : `Open this address in a browser to sign in to ${server}:\n  ${url.href}`,
  );
  options.print("Waiting for the browser to come back...");
}

/** The authorization code of a redirect, after checking its state; throws with the server's error. */
function checkRedirect(params: RedirectParams, state: string): string {
  if (params.get("state") !== state) {
    throw new Error(
      "the browser came back with another sign-in's state (a stale or forged redirect); " +
        "run the command again",
    );
  }
  const error = params.get("error");
  if (error) {
    const description = params.get("error_description");
    throw new Error(
      `the authorization server refused: ${error}${description ? ` (${description})` : ""}`,
    );
  }
  const code = params.get("code");
  if (!code) throw new Error("the browser came back without an authorization code");
  return code;
}
