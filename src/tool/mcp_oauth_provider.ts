/**
 * svc's `OAuthClientProvider` for the official MCP SDK: the SDK does the MCP authorization
 * specification (protected-resource and authorization-server discovery with their fallbacks,
 * dynamic client registration, client ID metadata documents, PKCE, scope selection and step-up,
 * refresh, the resource parameter, the issuer checks); this class only keeps what it obtains, in
 * mcp_oauth.json (mcp_oauth_store.ts), bound to the server's URL and the issuer.
 *
 * Two modes. `svc mcp login` gives a loopback redirect address and a way to open the browser: the
 * provider may register a client and send the person to sign in. A connection gives neither: it
 * uses and refreshes the stored tokens, and anything that needs the person (no tokens, a refused
 * refresh, more scope) ends in `SignInNeeded`, naming the command to run.
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { changeGrant, type OAuthGrant, readGrant } from "./mcp_oauth_store.ts";
import type { Config } from "../config/schema.ts";

/** The `oauth` settings of an http entry of `mcp.servers`. */
export type OAuthSettings = NonNullable<Config["mcp.servers"][number]["oauth"]>;

/** A connection met a server that wants the person to sign in (again, or for more scope). */
export class SignInNeeded extends Error {
  override name = "SignInNeeded";
  constructor(readonly server: string, why = "needs you to sign in", hint = "") {
    super(`MCP server ${server} ${why}: run svc mcp login ${server}${hint}`);
  }
}

/** What the provider needs to know. */
export interface ProviderOptions {
  /** The entry's name (for messages) and its URL (the protected resource). */
  server: string;
  url: string;
  oauth?: OAuthSettings;
  /** Login only: the loopback address the authorization server redirects to. */
  redirectUrl?: string;
  /** Login only: sends the person to the authorization URL. */
  open?(url: URL): Promise<void>;
  /** The folder of mcp_oauth.json (tests); `~/.config/svc` by default. */
  dir?: string;
}

/** The client name svc registers under. */
const CLIENT_NAME = "svc";

export class SvcOAuthProvider implements OAuthClientProvider {
  #verifier?: string;
  #discovery?: OAuthDiscoveryState;
  readonly #state = crypto.randomUUID();
  /** The loaded grant; read once, then kept in step with what is saved. */
  #grant?: OAuthGrant;

  constructor(readonly options: ProviderOptions) {}

  /** Loads the stored grant (call once before handing the provider to the SDK). */
  async load(): Promise<this> {
    this.#grant = await readGrant(this.options.url, { dir: this.options.dir }) ?? {};
    return this;
  }

  /** The state parameter this sign-in sent; the redirect must carry it back. */
  get expectedState(): string {
    return this.#state;
  }

  get redirectUrl(): string {
    // A connection never redirects, but the SDK treats a missing address as a machine-to-machine
    // flow: give it the one the client was registered with.
    const registered = (this.#grant?.client?.redirect_uris as string[] | undefined)?.[0];
    return this.options.redirectUrl ?? registered ?? "http://127.0.0.1/callback";
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.oauth?.client_metadata_url;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.options.oauth?.client_secret;
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: secret ? "client_secret_basic" : "none",
      ...(this.options.oauth?.scope ? { scope: this.options.oauth.scope } : {}),
    };
  }

  state(): string {
    return this.#state;
  }

  clientInformation(ctx?: { issuer: string }): StoredOAuthClientInformation | undefined {
    const { client_id, client_secret } = this.options.oauth ?? {};
    if (client_id) {
      return { client_id, ...(client_secret ? { client_secret } : {}), issuer: ctx?.issuer };
    }
    const client = this.#grant?.client as StoredOAuthClientInformation | undefined;
    const usable = client && !(ctx && client.issuer && client.issuer !== ctx.issuer);
    // A connection never registers a client: without one there is no sign-in to use.
    if (!usable && !this.options.open) throw this.#noClient();
    if (!usable) return undefined;
    // A login on another loopback port than the registered one registers afresh.
    const uris = (client as { redirect_uris?: string[] }).redirect_uris;
    if (this.options.redirectUrl && uris && !uris.includes(this.options.redirectUrl)) {
      return undefined;
    }
    return client;
  }

  async saveClientInformation(
    info: StoredOAuthClientInformation,
    ctx?: { issuer: string },
  ): Promise<void> {
    if (!this.options.open) throw new SignInNeeded(this.options.server);
    if (this.options.oauth?.client_id) return; // pre-registered: nothing of it is stored
    const port = URL.parse(this.redirectUrl)?.port;
    await this.#save((grant) => ({
      ...grant,
      issuer: ctx?.issuer ?? info.issuer ?? grant.issuer,
      client: { ...info, redirect_uris: [this.redirectUrl] },
      ...(port ? { port: Number(port) } : {}),
    }));
  }

  tokens(ctx?: { issuer: string }): StoredOAuthTokens | undefined {
    const tokens = this.#grant?.tokens as StoredOAuthTokens | undefined;
    if (!tokens) return undefined;
    // Tokens from another authorization server than the one that now protects the URL are
    // never offered (the SDK checks the same stamp; this holds without it too).
    if (ctx && tokens.issuer && tokens.issuer !== ctx.issuer) return undefined;
    return tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: { issuer: string }): Promise<void> {
    await this.#save((grant) => ({
      ...grant,
      issuer: ctx?.issuer ?? tokens.issuer ?? grant.issuer,
      tokens: { ...tokens },
      saved_at: new Date().toISOString(),
    }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.options.open) {
      // The scope the server now wants (a step-up asks for more): the next login asks for it.
      const scope = url.searchParams.get("scope");
      if (scope && scope !== this.#grant?.wanted_scope) {
        await this.#save((grant) => ({ ...grant, wanted_scope: scope }));
      }
      throw new SignInNeeded(this.options.server, this.#why());
    }
    await this.options.open(url);
  }

  /** The scope a connection last found the server wanting, for the next login. */
  get wantedScope(): string | undefined {
    return this.#grant?.wanted_scope;
  }

  saveCodeVerifier(verifier: string): void {
    // Kept in memory only; a connection stops at redirectToAuthorization right after.
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error("no sign-in is in progress (no PKCE code verifier)");
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    if (scope === "verifier") this.#verifier = undefined;
    if (scope === "discovery" || scope === "all") this.#discovery = undefined;
    if (scope === "verifier" || scope === "discovery") return;
    await this.#save((grant) => {
      const next = { ...grant };
      if (scope === "tokens" || scope === "all") delete next.tokens;
      if (scope === "client" || scope === "all") delete next.client;
      return next;
    });
  }

  /** A connection without a client; a server that published no OAuth metadata may not use OAuth. */
  #noClient(): SignInNeeded {
    const found = this.#discovery;
    if (found && !found.resourceMetadata && !found.authorizationServerMetadata) {
      return new SignInNeeded(
        this.options.server,
        "answered 401 (unauthorized) and publishes no OAuth metadata",
        " if it signs in with OAuth; else give it credentials in its entry's headers",
      );
    }
    return new SignInNeeded(this.options.server, this.#why());
  }

  /** Why a connection cannot go on: never signed in, or the stored sign-in no longer does. */
  #why(): string {
    return this.#grant?.tokens
      ? "needs you to sign in again (the stored sign-in expired, was refused or lacks a scope)"
      : "needs you to sign in";
  }

  async #save(fn: (grant: OAuthGrant) => OAuthGrant): Promise<void> {
    await changeGrant(this.options.url, {
      dir: this.options.dir,
      fn: (stored) => (this.#grant = fn(stored)),
    });
  }
}
