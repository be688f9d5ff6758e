/**
 * The macOS Seatbelt profile as text: macOS is not where these tests run, so they read the
 * profile sandbox-exec would be given (what it allows, what it takes back, in which order) and
 * check its string literals with a reader that unescapes them as SBPL's does.
 */
import assert from "node:assert/strict";
import type { SandboxLayout } from "../../src/sandbox/layout.ts";
import {
  SANDBOX_EXEC,
  sbplString,
  seatbeltArgs,
  seatbeltProfile,
  UnsafePathError,
} from "../../src/sandbox/seatbelt.ts";

const WT = "/Users/me/project";

function layout(parts: Partial<SandboxLayout> = {}): SandboxLayout {
  return {
    writable: [WT],
    readOnly: [`${WT}/.git/hooks`, `${WT}/.git/config`, `${WT}/.svc`],
    hiddenDirs: ["/Users/me/.ssh", "/Users/me/.config/svc"],
    hiddenFiles: ["/Users/me/.netrc"],
    temp: "/private/var/folders/xy/T/svc-sandbox-abc",
    shareNetwork: false,
    ...parts,
  };
}

/** The filters of the first rule that starts with `(<head>`, and where it starts. */
function ruleOf(profile: string, head: string): { at: number; filters: string[] } {
  const lines = profile.split("\n");
  const at = lines.findIndex((line) => line === `(${head}`);
  assert.notEqual(at, -1, `no (${head} rule in:\n${profile}`);
  const filters: string[] = [];
  for (let i = at + 1; lines[i] !== ")"; i++) filters.push(lines[i].trim());
  return { at, filters };
}

/** An SBPL string literal read back: `\x` is `x`, as sandbox-exec's reader takes `\"` and `\\`. */
function readLiteral(literal: string): string {
  assert.ok(literal.startsWith('"') && literal.endsWith('"'), literal);
  let out = "";
  for (let i = 1; i < literal.length - 1; i++) {
    if (literal[i] === "\\") out += literal[++i];
    else {
      assert.notEqual(literal[i], '"', `an unescaped quote ends the literal early: ${literal}`);
      out += literal[i];
    }
  }
  return out;
}

Deno.test("the profile denies everything by default and lets processes exec and fork", () => {
  const lines = seatbeltProfile(layout()).split("\n");
  assert.deepEqual(lines.slice(0, 2), ["(version 1)", "(deny default)"]);
  for (const rule of ["(allow process-exec)", "(allow process-fork)", "(allow file-read*)"]) {
    assert.ok(lines.includes(rule), rule);
  }
});

Deno.test("hidden folders and files are denied reads and writes after every allow", () => {
  const profile = seatbeltProfile(layout());
  const hidden = ruleOf(profile, "deny file-read* file-write*");
  assert.deepEqual(hidden.filters, [
    '(subpath "/Users/me/.ssh")',
    '(subpath "/Users/me/.config/svc")',
    '(literal "/Users/me/.netrc")',
  ]);
  const lines = profile.split("\n");
  const lastAllow = lines.findLastIndex((line) => line.startsWith("(allow"));
  assert.ok(hidden.at > lastAllow, "an allow after the hidden paths could show them again");
});

Deno.test("only the writable paths and the private temp folder are writable besides devices", () => {
  const profile = seatbeltProfile(layout({ writable: [WT, "/Users/me/cache"] }));
  assert.deepEqual(ruleOf(profile, "allow file-write*").filters, [
    `(subpath "${WT}")`,
    '(subpath "/Users/me/cache")',
    '(subpath "/private/var/folders/xy/T/svc-sandbox-abc")',
  ]);
  const writes = profile.split("\n").filter((line) => /^\(allow [^)]*file-write/.test(line));
  assert.deepEqual(writes, [
    '(allow file-read* file-write* file-ioctl (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))',
    "(allow file-write*",
    "(allow file-write-data file-ioctl",
  ]);
  const devices = ruleOf(profile, "allow file-write-data file-ioctl").filters;
  assert.ok(devices.every((filter) => filter.includes('"/dev/')), devices.join("\n"));
});

Deno.test("read-only mode leaves only the private temp folder writable", () => {
  const profile = seatbeltProfile(layout({ writable: [], readOnly: [] }));
  assert.deepEqual(ruleOf(profile, "allow file-write*").filters, [
    '(subpath "/private/var/folders/xy/T/svc-sandbox-abc")',
  ]);
  assert.doesNotMatch(profile, /\(deny file-write\*\n/);
});

Deno.test("control paths stay read-only inside the writable worktree, and their folders cannot be renamed", () => {
  const profile = seatbeltProfile(layout());
  const allow = ruleOf(profile, "allow file-write*");
  const readOnly = ruleOf(profile, "deny file-write*");
  assert.ok(readOnly.at > allow.at, "the deny must come after the allow it narrows");
  assert.deepEqual(readOnly.filters, [
    `(subpath "${WT}/.git/hooks")`,
    `(subpath "${WT}/.git/config")`,
    `(subpath "${WT}/.svc")`,
  ]);
  // .git and the worktree hold protected paths; /Users/me is not writable, so it is not listed.
  assert.deepEqual(ruleOf(profile, "deny file-write-unlink").filters, [
    `(literal "${WT}/.git")`,
    `(literal "${WT}")`,
  ]);
});

Deno.test("quotes and backslashes in paths are escaped so the literal reads back as the path", () => {
  const odd = `${WT}/a "quoted" dir\\with\\backslashes\\"`;
  assert.equal(readLiteral(sbplString(odd)), odd);
  assert.equal(sbplString('/a"b'), '"/a\\"b"');
  assert.equal(sbplString("/a\\b"), '"/a\\\\b"');
  assert.equal(sbplString("/ünï cödé/日本"), '"/ünï cödé/日本"');
  const profile = seatbeltProfile(layout({ writable: [odd], readOnly: [`${odd}/.svc`] }));
  const filter = ruleOf(profile, "allow file-write*").filters[0];
  assert.equal(readLiteral(filter.slice("(subpath ".length, -1)), odd);
});

Deno.test("a path with a newline, a NUL or another control character is refused, as is a relative or overlong one", () => {
  const refused = [
    layout({ writable: [`${WT}\n(allow default)`] }),
    layout({ hiddenFiles: ["/Users/me/.netrc\0"] }),
    layout({ readOnly: [`${WT}/.svc\r`] }),
    layout({ hiddenDirs: [`/Users/me/\x1b[31m`] }),
    layout({ temp: "relative/temp" }),
    layout({ writable: [`/${"a".repeat(1100)}`] }),
  ];
  for (const bad of refused) {
    assert.throws(() => seatbeltProfile(bad), UnsafePathError, JSON.stringify(bad));
  }
  assert.throws(() => seatbeltArgs(layout(), `${WT}\nx`), UnsafePathError);
  assert.throws(() => sbplString("/a\0b"), /control character/);
});

Deno.test("seatbeltArgs is /usr/bin/sandbox-exec -p with the profile, ending in --", () => {
  const args = seatbeltArgs(layout(), WT);
  assert.deepEqual(args, [SANDBOX_EXEC, "-p", seatbeltProfile(layout()), "--"]);
  assert.equal(SANDBOX_EXEC, "/usr/bin/sandbox-exec");
});

Deno.test("the network is shut unless shared, and open only to the proxy's loopback port when given", () => {
  const none = seatbeltProfile(layout());
  assert.doesNotMatch(none, /\(allow network/);
  const shared = seatbeltProfile(layout({ shareNetwork: true }));
  assert.match(shared, /^\(allow network\*\)$/m);
  const proxied = seatbeltProfile(layout(), { proxyPort: 3128 });
  const network = proxied.split("\n").filter((line) => line.includes("network"));
  assert.deepEqual(network.filter((line) => line.startsWith("(allow")), [
    '(allow network-outbound (remote ip "localhost:3128"))',
  ]);
  assert.throws(() => seatbeltProfile(layout(), { proxyPort: 70000 }), RangeError);
});
