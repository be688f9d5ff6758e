import assert from "node:assert/strict";
import { blockedReason } from "../src/address.ts";
import { fetchPage } from "../src/fetch_page.ts";
import { checkTarget, needsApproval } from "../src/target.ts";
import { createWebFetchTool } from "../src/web_fetch.ts";

const signal = new AbortController().signal;

Deno.test("blockedReason classifies every address notation of the SSRF table", () => {
  const table: Record<string, string | null> = {
    "127.0.0.1": "loopback",
    "2130706433": "loopback",
    "0x7f000001": "loopback",
    "0x7f.1": "loopback",
    "0177.0.0.1": "loopback",
    "127.1": "loopback",
    "0.0.0.0": "unspecified",
    "10.1.2.3": "private",
    "172.16.0.1": "private",
    "172.31.255.255": "private",
    "192.168.0.1": "private",
    "100.64.0.1": "shared (CGNAT)",
    "169.254.169.254": "link-local",
    "224.0.0.1": "multicast",
    "255.255.255.255": "reserved",
    "198.18.0.1": "reserved",
    "::": "unspecified",
    "::1": "loopback",
    "[::1]": "loopback",
    "::ffff:127.0.0.1": "IPv4-mapped loopback",
    "[::ffff:7f00:1]": "IPv4-mapped loopback",
    "::ffff:169.254.169.254": "IPv4-mapped link-local",
    "::7f00:1": "reserved",
    "64:ff9b::a00:1": "NAT64 private",
    "2002:c0a8:1::": "6to4 private",
    "fc00::1": "private",
    "fd12:3456::1": "private",
    "fe80::1": "link-local",
    "fe80::1%eth0": "link-local",
    "ff02::1": "multicast",
    "2001:db8::1": "reserved",
    "8.8.8.8": null,
    "172.32.0.1": null,
    "100.128.0.1": null,
    "::ffff:8.8.8.8": null,
    "2606:4700::1111": null,
  };
  const actual = Object.fromEntries(Object.keys(table).map((a) => [a, blockedReason(a)]));
  assert.deepEqual(actual, table);
});

Deno.test("needsApproval asks for local literals and names in any notation", () => {
  const urls = [
    "http://2130706433/",
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::1]:8080/",
    "http://0.0.0.0/",
    "http://0/",
    "http://169.254.169.254/latest/meta-data/",
    "http://localhost:3000/",
    "http://LOCALHOST./",
    "http://app.localhost/",
    "http://metadata.google.internal/",
    "http://printer.local/",
    "http://intranet/",
    "https://example.com/",
    "https://8.8.8.8/",
    "https://[2606:4700::1111]/",
  ];
  const asked = urls.filter((u) => needsApproval(new URL(u)));
  assert.deepEqual(asked, urls.slice(0, -3));
});

Deno.test("web_fetch refuses a decimal-encoded loopback address", async () => {
  const tool = createWebFetchTool();
  const url = "http://2130706433:9/secret";
  assert.equal(tool.resolvePolicy!({ url, _permissions: {} }, "/w"), "ask");
  assert.deepEqual(await fetchPage(url), {
    ok: false,
    error: "Refused to fetch http://127.0.0.1:9/secret: 127.0.0.1 is a loopback address. " +
      "Loopback, private and link-local hosts are fetched only when given directly as url by " +
      "IP address or local name, with the user's approval",
  });
});

Deno.test("web_fetch resolvePolicy keeps the category action for public hosts and ids", () => {
  const tool = createWebFetchTool();
  const verdicts = [
    { url: "https://example.com/a" },
    { id: 2 },
    { url: "not a url" },
    { url: "http://[fd00::5]/" },
  ].map((args) => tool.resolvePolicy!({ ...args, _permissions: {} }, "/w"));
  assert.deepEqual(verdicts, [undefined, undefined, undefined, "ask"]);
});

Deno.test("checkTarget refuses a name when any resolved address is blocked", async () => {
  const answers: Record<string, string[]> = {
    "mixed.test": ["93.184.216.34", "10.0.0.1"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "public.test": ["93.184.216.34", "2606:2800:220:1::1"],
  };
  const resolve = (host: string) => Promise.resolve(answers[host] ?? []);
  const check = async (url: string) => {
    const target = await checkTarget(new URL(url), { resolve, signal });
    return target.ok ? target.addresses : target.error.split(";")[0];
  };
  assert.deepEqual(await Promise.all(Object.keys(answers).map((h) => check(`http://${h}/`))), [
    "Refused to fetch http://mixed.test/: mixed.test resolves to a private address (10.0.0.1)",
    "Refused to fetch http://mapped.test/: mapped.test resolves to an IPv4-mapped loopback " +
    "address (::ffff:127.0.0.1)",
    ["93.184.216.34", "2606:2800:220:1::1"],
  ]);
  assert.equal(await check("http://nowhere.test/"), "Could not resolve nowhere.test");
});

Deno.test("checkTarget lets an allowed host through and refuses other schemes", async () => {
  const allowed = await checkTarget(new URL("http://localhost:8080/"), {
    allowHosts: ["localhost"],
    signal,
  });
  assert.deepEqual(allowed, {
    ok: true,
    url: new URL("http://localhost:8080/"),
    addresses: ["127.0.0.1", "::1"],
  });
  const schemes = ["ftp://example.com/", "file:///etc/passwd", "data:text/plain,hi"];
  const errors = await Promise.all(
    schemes.map(async (u) => {
      const t = await checkTarget(new URL(u), { signal });
      return t.ok ? "" : t.error;
    }),
  );
  assert.deepEqual(errors, [
    "Only http and https URLs can be fetched, not ftp:",
    "Only http and https URLs can be fetched, not file:",
    "Only http and https URLs can be fetched, not data:",
  ]);
});
