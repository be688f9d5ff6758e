import assert from "node:assert/strict";
import { NETWORK_VARIABLES, networkEnv, withNetworkEnv } from "../../src/tool/network_env.ts";

const SVC_ENV = {
  HOME: "/home/u",
  PATH: "/usr/bin",
  OPENAI_API_KEY: "sk-leak",
  SVC_PORT: "8080",
  HTTPS_PROXY: "http://proxy.corp:3128",
  no_proxy: "localhost,.corp",
  NODE_EXTRA_CA_CERTS: "/etc/corp-ca.pem",
  SSL_CERT_DIR: "",
};

Deno.test("networkEnv picks only the listed proxy and certificate variables that are set", () => {
  assert.deepEqual(networkEnv(SVC_ENV), {
    HTTPS_PROXY: "http://proxy.corp:3128",
    no_proxy: "localhost,.corp",
    NODE_EXTRA_CA_CERTS: "/etc/corp-ca.pem",
  });
  assert.equal(NETWORK_VARIABLES.some((name) => /KEY|TOKEN|SECRET|^SVC_/i.test(name)), false);
});

Deno.test("withNetworkEnv adds svc's network settings to the base, never its keys or svc variables", () => {
  assert.deepEqual(withNetworkEnv({ HOME: "/home/u" }, { MARK: "1" }, SVC_ENV), {
    HOME: "/home/u",
    HTTPS_PROXY: "http://proxy.corp:3128",
    no_proxy: "localhost,.corp",
    NODE_EXTRA_CA_CERTS: "/etc/corp-ca.pem",
    MARK: "1",
  });
});

Deno.test("withNetworkEnv: the entry's value wins in either case, and an empty one removes the variable", () => {
  const own = { https_proxy: "http://other:8080", NO_PROXY: "", NODE_EXTRA_CA_CERTS: "/mine.pem" };
  assert.deepEqual(withNetworkEnv({}, own, SVC_ENV), {
    https_proxy: "http://other:8080",
    NODE_EXTRA_CA_CERTS: "/mine.pem",
  });
  // An empty value of another variable is the entry's to give.
  assert.deepEqual(withNetworkEnv({}, { EMPTY: "" }, {}), { EMPTY: "" });
});

Deno.test("withNetworkEnv keeps a proxy address with a password out, unless the entry gives it", () => {
  const from = { HTTPS_PROXY: "http://user:secret@proxy.corp:3128", HTTP_PROXY: "http://p:3128" };
  assert.deepEqual(withNetworkEnv({}, {}, from), { HTTP_PROXY: "http://p:3128" });
  assert.deepEqual(withNetworkEnv({}, { HTTPS_PROXY: from.HTTPS_PROXY }, from), from);
});
