/**
 * Machine clients of OAuth-protected MCP servers (`oauth.grant: "client_credentials"`;
 * docs/mcp_client.md#machine-clients-client-credentials): the official SDK's providers for the
 * `client_credentials` grant, with `client_secret_basic` (`oauth.client_secret`) or
 * `private_key_jwt` (`oauth.private_key_file`). No person and no `svc mcp login`: the SDK fetches a
 * token when the server answers 401, and keeps it in memory for the connection. The credentials go
 * only to `oauth.issuer` (the SDK refuses another authorization server).
 */
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/client";
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import type { OAuthSettings } from "./mcp_oauth_provider.ts";
import { checkPrivate } from "../util/private_file.ts";
import { readTextCapped } from "../util/fs.ts";

/** Whether an entry's `oauth` makes it a machine client. */
export function isMachineClient(oauth: OAuthSettings | undefined): boolean {
  return oauth?.grant === "client_credentials";
}

/** The SDK's provider for a machine client's `oauth` settings (the schema checked them). */
export async function machineAuthProvider(
  server: string,
  oauth: OAuthSettings,
): Promise<OAuthClientProvider> {
  const common = {
    clientId: oauth.client_id!,
    clientName: "svc",
    expectedIssuer: oauth.issuer!,
    ...(oauth.scope ? { scope: oauth.scope } : {}),
  };
  if (oauth.client_secret) {
    return new ClientCredentialsProvider({ ...common, clientSecret: oauth.client_secret });
  }
  return new PrivateKeyJwtProvider({
    ...common,
    privateKey: await readPrivateKey(server, oauth.private_key_file!),
    algorithm: oauth.signing_algorithm ?? "RS256",
  });
}

/** The PEM key, read only from a file of this user's that no one else can write. */
async function readPrivateKey(server: string, file: string): Promise<string> {
  const home = (Deno.env.get("HOME") ?? "").replace(/\/+$/, "");
  const path = file.startsWith("~/") && home.startsWith("/") ? `${home}${file.slice(1)}` : file;
  if (!path.startsWith("/")) {
    throw new Error(
      `MCP server ${server}: oauth.private_key_file must be an absolute path or start with ~/ ` +
        `(got ${JSON.stringify(file)})`,
    );
  }
  checkPrivate(path);
  try {
    return (await readTextCapped(path, 64 * 1024)).text;
  } catch (err) {
    throw new Error(
      `MCP server ${server}: cannot read oauth.private_key_file ${path}: ${(err as Error).message}`,
    );
  }
}
