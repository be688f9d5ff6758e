/**
 * Machine clients of OAuth-protected MCP servers (`oauth.grant: "client_credentials"`): what the
 * config must say (an issuer, exactly one way to authenticate) and how the key file is read (only
 * a private file of this user's). The flows themselves are the conformance suite's
 * `client-credentials-basic` and `client-credentials-jwt` (docs/mcp_client.md#conformance).
 */
import assert from "node:assert/strict";
import { McpServerSchema } from "../../src/config/schema.ts";
import { machineAuthProvider } from "../../src/tool/mcp_machine_auth.ts";
import { signInEntry } from "../../src/tool/mcp_sign_in.ts";

const entry = (oauth: Record<string, unknown>) =>
  McpServerSchema.safeParse({ name: "m", transport: "http", url: "https://x.test/mcp", oauth });

function problem(oauth: Record<string, unknown>): string {
  const parsed = entry(oauth);
  return parsed.success ? "accepted" : parsed.error.issues.map((i) => i.message).join("; ");
}

Deno.test("a client_credentials entry needs its client, its issuer and one way to authenticate", () => {
  const base = { grant: "client_credentials", client_id: "c", issuer: "https://auth.test" };
  assert.deepEqual(
    [
      problem({ ...base, client_secret: "s" }),
      problem({ ...base, private_key_file: "~/k.pem", signing_algorithm: "ES256" }),
      problem({ grant: "client_credentials", issuer: "https://auth.test", client_secret: "s" }),
      problem({ grant: "client_credentials", client_id: "c", client_secret: "s" }),
      problem({ ...base, client_secret: "s", private_key_file: "~/k.pem" }),
      problem(base),
      problem({ client_id: "c", issuer: "https://auth.test" }),
      problem({ ...base, issuer: "auth.test", client_secret: "s" }),
    ],
    [
      "accepted",
      "accepted",
      // (client_secret without client_id is refused on its own too)
      "server m: oauth.client_secret needs oauth.client_id (the pre-registered client); server m: " +
      'oauth.grant "client_credentials" needs oauth.client_id',
      'server m: oauth.grant "client_credentials" needs oauth.issuer (the authorization server ' +
      "trusted with the credentials)",
      'server m: oauth.grant "client_credentials" needs one of oauth.client_secret ' +
      "(client_secret_basic) or oauth.private_key_file (private_key_jwt)",
      'server m: oauth.grant "client_credentials" needs one of oauth.client_secret ' +
      "(client_secret_basic) or oauth.private_key_file (private_key_jwt)",
      'server m: oauth.issuer applies to oauth.grant "client_credentials" only',
      "must be an http(s):// URL",
    ],
  );
  // No person signs it in: svc mcp login says how it connects instead.
  const parsed = entry({ ...base, client_secret: "s" });
  assert.ok(parsed.success);
  assert.throws(() => signInEntry([parsed.data], "m"), {
    message: 'm is a machine client (oauth.grant "client_credentials"): it signs in by itself ' +
      "when it connects; run mcp_connect m",
  });
});

Deno.test("a machine client's credentials are bound to its issuer; its key is read only from a private file", async () => {
  const basic = await machineAuthProvider("m", {
    grant: "client_credentials",
    client_id: "c",
    client_secret: "s",
    issuer: "https://auth.test",
  });
  assert.deepEqual(basic.clientInformation(), {
    client_id: "c",
    client_secret: "s",
    issuer: "https://auth.test",
  });

  const dir = await Deno.makeTempDir({ prefix: "svc-machine-key-" });
  try {
    const { privateKey } = await crypto.subtle.generateKey(
      { name: "ECDSA", namedCurve: "P-256" },
      true,
      ["sign", "verify"],
    );
    const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", privateKey));
    const pem = `-----BEGIN PRIVATE KEY-----\n${
      btoa(String.fromCharCode(...der))
    }\n-----END PRIVATE KEY-----\n`;
    const key = `${dir}/key.pem`;
    await Deno.writeTextFile(key, pem, { mode: 0o600 });
    const jwt = await machineAuthProvider("m", {
      grant: "client_credentials",
      client_id: "c",
      issuer: "https://auth.test",
      private_key_file: key,
      signing_algorithm: "ES256",
    });
    assert.deepEqual(jwt.clientInformation(), { client_id: "c", issuer: "https://auth.test" });

    await Deno.chmod(key, 0o666);
    await assert.rejects(
      () =>
        machineAuthProvider("m", {
          grant: "client_credentials",
          client_id: "c",
          issuer: "https://auth.test",
          private_key_file: key,
        }),
      { name: "UnsafeFileError" },
    );
    await assert.rejects(
      () =>
        machineAuthProvider("m", {
          grant: "client_credentials",
          client_id: "c",
          issuer: "https://auth.test",
          private_key_file: "keys/key.pem",
        }),
      {
        message: "MCP server m: oauth.private_key_file must be an absolute path or start with ~/ " +
          '(got "keys/key.pem")',
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
