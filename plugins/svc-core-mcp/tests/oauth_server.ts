/**
 * A real OAuth-protected MCP server on a loopback port, built from the official SDK (1.x): its
 * authorization-server router (metadata, dynamic client registration, authorize, token with PKCE
 * and refresh), its bearer-token middleware and protected-resource metadata, and an MCP server
 * with two tools: `whoami` (the token's client and scopes) and `confirm` (asks the client a form
 * question through elicitation/create and returns the answer). The authorization step approves
 * at once and redirects, as a signed-in person clicking "allow" would.
 */
import express from "express";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { IncomingMessage, ServerResponse } from "node:http";
import { mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import {
  InvalidGrantError,
  InvalidTokenError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

// express ships no types here: its request and response as the SDK's transport takes them.
type Req = IncomingMessage & { body?: unknown };
type Res = ServerResponse;

interface Grant {
  clientId: string;
  scopes: string[];
  resource?: string;
  expiresAt: number;
}

/** What the test reads back and steers. */
export interface OAuthServer {
  /** The MCP endpoint. */
  url: string;
  /** Every Authorization header the MCP endpoint received, in order. */
  seen: string[];
  /** Counts of grants issued: authorization codes exchanged, refreshes. */
  counts: { code: number; refresh: number; registered: number };
  /** The `resource` parameters the token endpoint received. */
  resources: string[];
  /** Makes every access token issued so far expire (the next call gets 401). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

class TestProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, { client: string; challenge: string; grant: Grant }>();
  readonly access = new Map<string, Grant>();
  readonly refresh = new Map<string, Grant>();
  readonly counts = { code: 0, refresh: 0, registered: 0 };
  readonly resources: string[] = [];

  get clientsStore() {
    return {
      getClient: (id: string) => Promise.resolve(this.clients.get(id)),
      registerClient: (client: OAuthClientInformationFull) => {
        this.counts.registered++;
        this.clients.set(client.client_id, client);
        return Promise.resolve(client);
      },
    };
  }

  authorize(
    client: OAuthClientInformationFull,
    params: {
      state?: string;
      scopes?: string[];
      codeChallenge: string;
      redirectUri: string;
      resource?: URL;
    },
    res: { redirect(url: string): void },
  ): Promise<void> {
    const code = randomUUID();
    this.codes.set(code, {
      client: client.client_id,
      challenge: params.codeChallenge,
      grant: {
        clientId: client.client_id,
        scopes: params.scopes ?? [],
        resource: params.resource?.href,
        expiresAt: 0,
      },
    });
    const target = new URL(params.redirectUri);
    target.searchParams.set("code", code);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    res.redirect(target.href);
    return Promise.resolve();
  }

  challengeForAuthorizationCode(
    _client: OAuthClientInformationFull,
    code: string,
  ): Promise<string> {
    const found = this.codes.get(code);
    if (!found) throw new InvalidGrantError("unknown code");
    return Promise.resolve(found.challenge);
  }

  exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _v?: string,
    _r?: string,
    resource?: URL,
  ) {
    const found = this.codes.get(code);
    if (!found || found.client !== client.client_id) throw new InvalidGrantError("unknown code");
    this.codes.delete(code);
    this.counts.code++;
    this.resources.push(resource?.href ?? "");
    return Promise.resolve(this.#issue(found.grant));
  }

  exchangeRefreshToken(
    client: OAuthClientInformationFull,
    token: string,
    _s?: string[],
    resource?: URL,
  ) {
    const grant = this.refresh.get(token);
    if (!grant || grant.clientId !== client.client_id) {
      throw new InvalidGrantError("unknown refresh token");
    }
    this.refresh.delete(token); // rotated
    this.counts.refresh++;
    this.resources.push(resource?.href ?? "");
    return Promise.resolve(this.#issue(grant));
  }

  verifyAccessToken(token: string) {
    const grant = this.access.get(token);
    if (!grant || grant.expiresAt < Date.now()) {
      throw new InvalidTokenError("expired or unknown token");
    }
    return Promise.resolve({
      token,
      clientId: grant.clientId,
      scopes: grant.scopes,
      expiresAt: Math.floor(grant.expiresAt / 1000),
    });
  }

  #issue(grant: Grant) {
    const access = `at-${randomUUID()}`;
    const refresh = `rt-${randomUUID()}`;
    this.access.set(access, { ...grant, expiresAt: Date.now() + 3_600_000 });
    this.refresh.set(refresh, grant);
    return {
      access_token: access,
      refresh_token: refresh,
      token_type: "bearer",
      expires_in: 3600,
      scope: grant.scopes.join(" "),
    };
  }
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: "oauth-test", version: "1.0.0" });
  server.registerTool(
    "whoami",
    { description: "the token's client and scopes" },
    (extra: { authInfo?: { clientId: string; scopes: string[] } }) => ({
      content: [{
        type: "text",
        text: `client ${extra.authInfo?.clientId}; scopes ${extra.authInfo?.scopes.join(" ")}`,
      }],
    }),
  );
  server.registerTool(
    "confirm",
    { description: "asks the user to confirm a deletion" },
    async () => {
      const answer = await server.server.elicitInput({
        message: "Delete the branch?",
        requestedSchema: {
          type: "object",
          properties: {
            branch: { type: "string", title: "Branch", default: "main" },
            force: { type: "boolean", title: "Force" },
            color: { type: "string", title: "Color", enum: ["red", "green"] },
          },
          required: ["branch", "color"],
        },
      });
      return { content: [{ type: "text", text: `answer: ${JSON.stringify(answer)}` }] };
    },
  );
  return server;
}

/** Starts the server on 127.0.0.1 (a free port); `close()` stops it. */
export async function startOAuthServer(): Promise<OAuthServer> {
  const app = express();
  const listening = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => listening.once("listening", resolve));
  const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  const url = `${base}/mcp`;
  const provider = new TestProvider();
  const seen: string[] = [];
  app.use(mcpAuthRouter({
    provider,
    issuerUrl: new URL(base),
    resourceServerUrl: new URL(url),
    scopesSupported: ["mcp:tools"],
    authorizationOptions: { rateLimit: false },
    clientRegistrationOptions: { rateLimit: false },
    tokenOptions: { rateLimit: false },
  }));
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  app.use("/mcp", (req: Req, _res: unknown, next: () => void) => {
    seen.push(req.headers.authorization ?? "");
    next();
  });
  app.all(
    "/mcp",
    requireBearerAuth({
      verifier: provider,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
    }),
    express.json(),
    async (req: Req, res: Res) => {
      const id = req.headers["mcp-session-id"] as string | undefined;
      let transport = id ? sessions.get(id) : undefined;
      if (!transport) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid: string) => void sessions.set(sid, transport!),
        });
        await mcpServer().connect(transport);
      }
      await transport.handleRequest(req, res, req.body);
    },
  );
  return {
    url,
    seen,
    counts: provider.counts,
    resources: provider.resources,
    expireAccessTokens() {
      for (const grant of provider.access.values()) grant.expiresAt = 0;
    },
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      listening.closeAllConnections();
      await new Promise((resolve) => listening.close(resolve));
    },
  };
}

if (import.meta.main) {
  const server = await startOAuthServer();
  console.log(server.url);
}
