/**
 * `~/.config/svc/mcp_oauth.json`: what `svc mcp login` obtained from MCP servers' authorization
 * servers (the registered client, the tokens), kept like provider keys: mode 0600, read only when
 * no other user could have written it or its folder (src/util/private_file.ts), never logged.
 *
 * A grant is keyed by the MCP server's URL, not by the entry's name, and records the issuer that
 * granted it: a token is only ever offered to the server it was obtained for, so an entry that
 * changes its `url` (or a second server with the same name elsewhere) starts without one.
 */
import { join } from "../util/posix_path.ts";
import { globalConfigDir } from "../util/dirs.ts";
import { readJson, updateJson } from "../util/json_file.ts";

/** One server's grant. Fields are the SDK's stored shapes, kept as JSON. */
export interface OAuthGrant {
  /** The authorization server's issuer the client and tokens belong to. */
  issuer?: string;
  /** The registered (or pre-registered) client: client_id, client_secret, redirect_uris, ... */
  client?: Record<string, unknown>;
  /** access_token, refresh_token, expires_in, scope, token_type, issuer. */
  tokens?: Record<string, unknown>;
  /** When the tokens were saved (ISO time), for `expires_in`. */
  saved_at?: string;
  /** The loopback port the client was registered with (reused so its redirect_uri still fits). */
  port?: number;
  /** The scope a connection found the server asking for (a step-up); the next login asks for it. */
  wanted_scope?: string;
}

/** Where the file lives; `dir` defaults to `~/.config/svc`. */
export interface GrantStoreOptions {
  dir?: string;
}

/** Path of mcp_oauth.json. */
export function grantsPath(options: GrantStoreOptions = {}): string {
  return join(options.dir ?? globalConfigDir(), "mcp_oauth.json");
}

/** The key of a server's grant: its URL without fragment (query and path are part of it). */
export function grantKey(url: string): string {
  const parsed = new URL(url);
  parsed.hash = "";
  return parsed.href;
}

/** Every grant by server URL (a missing or corrupt file holds none). */
export async function readGrants(
  options: GrantStoreOptions = {},
): Promise<Record<string, OAuthGrant>> {
  const { value } = await readJson(grantsPath(options), { private: true });
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, OAuthGrant>
    : {};
}

/** The grant of the server at `url`, if any. */
export async function readGrant(
  url: string,
  options: GrantStoreOptions = {},
): Promise<OAuthGrant | undefined> {
  const grant = (await readGrants(options))[grantKey(url)];
  return grant && typeof grant === "object" ? grant : undefined;
}

/**
 * Changes the grant of the server at `url` with `fn` under the file's lock (0600); `fn`
 * returning undefined removes it. Resolves with whether there was a grant before.
 */
export async function changeGrant(
  url: string,
  { fn, dir }: GrantStoreOptions & { fn: (grant: OAuthGrant) => OAuthGrant | undefined },
): Promise<boolean> {
  const key = grantKey(url);
  let existed = false;
  await updateJson(grantsPath({ dir }), (current) => {
    const grants = current && typeof current === "object" && !Array.isArray(current)
      ? current as Record<string, OAuthGrant>
      : {};
    existed = key in grants;
    const next = fn({ ...grants[key] });
    if (next) grants[key] = next;
    else delete grants[key];
    return grants;
  }, { mode: 0o600, private: true });
  return existed;
}
