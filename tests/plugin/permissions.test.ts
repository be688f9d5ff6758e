import assert from "node:assert/strict";
import { join } from "node:path";
import {
  denoFlags,
  describeGrant,
  grantSummary,
  workerPermissions,
  WORKTREE,
} from "../../src/plugin/grant.ts";
import { grantFor, PermissionsSchema } from "../../src/plugin/permissions.ts";
import { makeLayout } from "./_helpers.ts";

/** A layout's places: plugin folder, worktree, HOME and its svc folder. */
async function places() {
  const t = await makeLayout();
  const pluginDir = join(t.globalDir, "p");
  await Deno.mkdir(pluginDir, { recursive: true });
  const configDir = join(t.home, ".config", "svc");
  return { t, pluginDir, worktree: t.worktree, home: t.home, configDir };
}

const declare = (permissions: unknown, requires: string[] = []) =>
  ({ permissions, requires }) as Parameters<typeof grantFor>[0];

Deno.test("nothing declared grants reading the plugin's own folder and nothing else", async () => {
  const p = await places();
  await using _ = p.t;
  const granted = grantFor(declare({}), p);
  assert.deepEqual(granted, {
    ok: true,
    grant: {
      read: [p.pluginDir],
      write: [],
      net: [],
      run: [],
      env: [],
      import: [],
      sensitive: [],
    },
  });
  assert.ok(granted.ok);
  assert.deepEqual(workerPermissions(granted.grant), {
    read: [p.pluginDir],
    write: false,
    net: false,
    run: false,
    env: false,
    import: false,
    sys: false,
    ffi: false,
  });
  assert.deepEqual(describeGrant(granted.grant, p.worktree), []);
  assert.equal(grantSummary(granted.grant, p.worktree), "none");
  assert.deepEqual(denoFlags(granted.grant), ["--no-prompt", `--allow-read=${p.pluginDir}`]);
});

Deno.test("each declared permission covers the worktree and exactly what the manifest lists", async () => {
  const p = await places();
  await using _ = p.t;
  const data = join(p.t.base, "data");
  const granted = grantFor(
    declare(
      {
        read: ["~/notes", data],
        write: true,
        net: ["api.example.com", "127.0.0.1:8080"],
        run: ["git", "git"],
        env: ["GITHUB_TOKEN"],
      },
      ["npm:zod@4", "https://deno.land/x/y.ts", "jsr:@std/path"],
    ),
    p,
  );
  assert.deepEqual(granted, {
    ok: true,
    grant: {
      read: [p.pluginDir, p.worktree, join(p.home, "notes"), data],
      write: [p.worktree],
      net: ["api.example.com", "127.0.0.1:8080"],
      run: ["git"],
      env: ["GITHUB_TOKEN"],
      import: ["deno.land", "jsr.io"],
      sensitive: [],
    },
  });
  assert.ok(granted.ok);
  assert.deepEqual(describeGrant(granted.grant, p.worktree), [
    `read: the worktree, ${join(p.home, "notes")}, ${data}`,
    "write: the worktree",
    "net: api.example.com, 127.0.0.1:8080",
    "run: git (the plugin then runs in svc's OS sandbox, unless sandbox.mode is danger-full-access)",
    "env: GITHUB_TOKEN",
    "import: deno.land, jsr.io",
  ]);
  assert.equal(
    grantSummary(granted.grant, p.worktree),
    `read=worktree,${join(p.home, "notes")},${data} write=worktree ` +
      "net=api.example.com,127.0.0.1:8080 run=git env=GITHUB_TOKEN import=deno.land,jsr.io",
  );
  // The list of names still parses: read and write cover the worktree, net any host.
  const names = grantFor(declare(["read", "net"]), p);
  assert.ok(names.ok);
  assert.deepEqual([names.grant.read, names.grant.net], [[p.pluginDir, p.worktree], "any"]);
  assert.equal(workerPermissions(names.grant).net, true);
});

Deno.test("svc's own folder is never written nor covered by a broader grant, only read by name", async () => {
  const p = await places();
  await using _ = p.t;
  const keys = join(p.configDir, "providers.json");
  const refused = (permissions: unknown, where: string) =>
    assert.deepEqual(grantFor(declare(permissions), p), { ok: false, error: where });
  refused(
    { read: ["~"] },
    `permissions.read: "~" (${p.home}) contains svc's own folder ${p.configDir} ` +
      "(API keys, trust list)",
  );
  refused(
    { write: ["~/.config/svc/trusted.json"] },
    `permissions.write: "~/.config/svc/trusted.json" (${join(p.configDir, "trusted.json")}) ` +
      `is inside svc's own folder ${p.configDir}`,
  );
  // Run from HOME, a worktree grant would cover the keys: refused, whatever the manifest lists.
  assert.deepEqual(grantFor(declare({ read: true }), { ...p, worktree: p.home }), {
    ok: false,
    error: `permissions.read: the worktree (${p.home}) contains svc's own folder ` +
      `${p.configDir} (API keys, trust list); run svc from a project folder`,
  });
  // A file of svc's folder read by name is granted, and said to be sensitive.
  const named = grantFor(declare({ read: ["~/.config/svc/providers.json"] }), p);
  assert.ok(named.ok);
  assert.deepEqual(named.grant.sensitive, [keys]);
  assert.deepEqual(describeGrant(named.grant, p.worktree), [
    `read: the worktree, ${keys} (inside svc's own folder, which holds API keys)`,
  ]);
});

Deno.test("run and env must name what they cover; a global install shows the worktree generically", async () => {
  const p = await places();
  await using _ = p.t;
  assert.deepEqual(grantFor(declare(["run"]), p), {
    ok: false,
    error: `permissions: "run" must list what it covers, for example "permissions": ` +
      `{"run": ["git"]}`,
  });
  assert.deepEqual(grantFor(declare(["env"]), p), {
    ok: false,
    error: `permissions: "env" must list what it covers, for example "permissions": ` +
      `{"env": ["GITHUB_TOKEN"]}`,
  });
  const global = grantFor(declare({ read: true, write: true }), { ...p, worktree: null });
  assert.ok(global.ok);
  assert.deepEqual([global.grant.read, global.grant.write], [[p.pluginDir, WORKTREE], [WORKTREE]]);
  assert.deepEqual(describeGrant(global.grant, p.worktree), [
    "read: the worktree",
    "write: the worktree",
  ]);
});

Deno.test("delegate is granted only when the manifest asks for it, and the grant says so", async () => {
  const p = await places();
  await using _ = p.t;
  assert.equal(PermissionsSchema.safeParse({ delegate: "yes" }).success, false);
  const granted = grantFor(declare(PermissionsSchema.parse({ delegate: true })), p);
  assert.ok(granted.ok);
  assert.equal(granted.grant.delegate, true);
  assert.deepEqual(describeGrant(granted.grant, p.worktree), [
    "delegate: its tools may hand tasks to sub-agents (which act with their own permissions, " +
    "not this grant)",
  ]);
  assert.equal(grantSummary(granted.grant, p.worktree), "delegate");
  const plain = grantFor(declare({ read: true }), p);
  assert.ok(plain.ok);
  assert.equal(plain.grant.delegate, undefined);
});
