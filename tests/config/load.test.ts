import assert from "node:assert/strict";
import { ConfigError, loadConfigReport } from "../../src/config/load.ts";

/** The effective configuration alone, as the runtime takes it from loadConfigReport. */
async function loadConfig(worktree: string, overrides: Record<string, unknown> = {}) {
  return (await loadConfigReport(worktree, overrides)).config;
}

async function withHome(
  files: { global?: unknown; local?: unknown; trusted?: boolean },
  fn: (worktree: string) => Promise<void>,
) {
  const home = await Deno.makeTempDir({ prefix: "svc-home-" });
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  const oldHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    if (files.trusted) {
      await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
      await Deno.writeTextFile(`${home}/.config/svc/trusted.json`, JSON.stringify([worktree]));
    }
    if (files.global !== undefined) {
      await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
      await Deno.writeTextFile(
        `${home}/.config/svc/config.json`,
        typeof files.global === "string" ? files.global : JSON.stringify(files.global),
      );
    }
    if (files.local !== undefined) {
      await Deno.mkdir(`${worktree}/.svc`, { recursive: true });
      await Deno.writeTextFile(
        `${worktree}/.svc/config.json`,
        typeof files.local === "string" ? files.local : JSON.stringify(files.local),
      );
    }
    await fn(worktree);
  } finally {
    if (oldHome) Deno.env.set("HOME", oldHome);
    await Deno.remove(home, { recursive: true });
    await Deno.remove(worktree, { recursive: true });
  }
}

Deno.test("config defaults follow the SPEC table", async () => {
  await withHome({}, async (worktree) => {
    const c = await loadConfig(worktree);
    assert.deepEqual(
      [
        c.max_tokens,
        c.reasoning,
        c.project_instructions,
        c.tool_max_result_chars,
        c.list_dir_max_entries,
        c.session_tool_max_chars,
        c.stream_retries + 1,
        c.stream_retry_delay,
        c.compact_keep,
        c.connect_check,
        c.tool_calling,
        c.query_refine_min_words,
        c.query_refine_context,
        c["mcp_server.allow_ask"],
        c.markdown_streaming,
      ],
      [8192, "auto", "AGENTS.md", 100000, 200, 0, 3, 0.5, 4, true, true, 3, 4, true, false],
    );
    assert.equal(c.plugins.length, 8);
  });
});

Deno.test("a trusted local config wins over global and tool_permission merges per category", async () => {
  await withHome({
    global: { model: "g", max_tokens: 100, tool_permission: { bash: "deny", edit: "allow" } },
    local: { model: "l", tool_permission: { bash: "allow" }, "tool_permission.bash_allow": ["ls"] },
    trusted: true,
  }, async (worktree) => {
    const c = await loadConfig(worktree);
    assert.equal(c.model, "l");
    assert.equal(c.max_tokens, 100);
    assert.deepEqual(c.tool_permission, { bash: "allow", edit: "allow", bash_allow: ["ls"] });
  });
});

Deno.test("nested spellings fold into the dotted keys", async () => {
  await withHome(
    { local: { tools: { deny: ["grep"] }, dev: { test_cmd: "make t" } } },
    async (w) => {
      const c = await loadConfig(w);
      assert.deepEqual(c["tools.deny"], ["grep"]);
      assert.equal(c["dev.test_cmd"], "make t");
    },
  );
});

Deno.test("the sandbox keys nest two levels deep and have their defaults", async () => {
  await withHome({
    global: {
      sandbox: {
        mode: "read-only",
        filesystem: { allowWrite: ["~/.cache"], denyRead: ["~/private"] },
        network: { allowedDomains: ["*.npmjs.org"] },
      },
      limits: { command: { memory: "2GiB", processes: 64 } },
    },
  }, async (w) => {
    const c = await loadConfig(w);
    assert.deepEqual(
      Object.fromEntries(Object.entries(c).filter(([k]) => /^(sandbox|limits)\./.test(k))),
      {
        "sandbox.mode": "read-only",
        "sandbox.failIfUnavailable": true,
        "sandbox.filesystem.allowWrite": ["~/.cache"],
        "sandbox.filesystem.denyWrite": [],
        "sandbox.filesystem.denyRead": ["~/private"],
        "sandbox.network.allowedDomains": ["*.npmjs.org"],
        "sandbox.network.deniedDomains": [],
        "limits.command": { memory: "2GiB", processes: 64 },
      },
    );
  });
});

const bad: Array<[string, unknown, RegExp]> = [
  ["an unknown sandbox mode is rejected", { sandbox: { mode: "off" } }, /"sandbox\.mode"/],
  [
    "a size that is not one is rejected, naming the form",
    { limits: { command: { memory: "lots" } } },
    /"limits\.command\.memory": must be a size such as 4GiB/,
  ],
  [
    "a removed key names the key and the file",
    { api_key: "sk" },
    /"api_key".*config\.json.*removed/,
  ],
  ["persona is rejected", { persona: "x" }, /"persona"/],
  ["an unknown key is rejected", { modle: "x" }, /config\.json.*modle/],
  ["a wrong type is rejected", { max_tokens: "lots" }, /max_tokens/],
  ["a bad action is rejected", { tool_permission: { bash: "maybe" } }, /tool_permission\.bash/],
  ["invalid JSON is reported", "{not json", /not valid JSON/],
  ["a non-object is reported", "[1,2]", /must hold a JSON object/],
];
for (const [name, local, pattern] of bad) {
  Deno.test(`config: ${name}, and the file is left untouched`, async () => {
    await withHome({ local }, async (worktree) => {
      const before = await Deno.readTextFile(`${worktree}/.svc/config.json`);
      await assert.rejects(() => loadConfig(worktree), (err: Error) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, pattern);
        return true;
      });
      assert.equal(await Deno.readTextFile(`${worktree}/.svc/config.json`), before);
    });
  });
}

Deno.test("mcp.servers entries get their defaults, and each wrong key is named with its server", async () => {
  await withHome({
    global: { mcp: { servers: [{ name: "fs", command: "mcp-fs" }] } },
  }, async (worktree) => {
    const c = await loadConfig(worktree);
    assert.deepEqual(c["mcp.servers"], [{
      name: "fs",
      transport: "stdio",
      command: "mcp-fs",
      args: [],
      cwd: null,
      env: {},
      headers: {},
      timeout: 60,
      autoconnect: false,
      sandbox: false,
    }]);
  });
  const wrong: Array<[unknown[], string]> = [
    [[{ name: "fs" }], '"mcp.servers.0.command": server fs: transport stdio needs command'],
    [[{ name: "w", transport: "http" }], '"mcp.servers.0.url": server w: transport http needs url'],
    [
      [{ name: "w", transport: "http", url: "file:///etc/passwd" }],
      '"mcp.servers.0.url": server w: url must be an http:// or https:// address, not "file:///etc/passwd"',
    ],
    [
      [{ name: "w", transport: "http", url: "http://x/mcp", command: "y" }],
      '"mcp.servers.0.command": server w: command applies to transport "stdio" only',
    ],
    [
      [{ name: "fs", command: "x", url: "http://x" }],
      '"mcp.servers.0.url": server fs: url applies to transport "http" only',
    ],
    [
      [{ name: "w", transport: "http", url: "http://x", headers: { "Bad Header": "v" } }],
      '"mcp.servers.0.headers": server w: headers "Bad Header" is not a valid HTTP header',
    ],
    [
      [{ name: "fs", command: "x", env: { "A=B": "v" } }],
      '"mcp.servers.0.env": server fs: env "A=B" is not a valid environment variable',
    ],
    [
      [{ name: "my.fs", command: "x" }],
      '"mcp.servers.0.name": must be 1-32 letters, digits, _ or - (imported tools are named <prefix>.<tool>)',
    ],
    [[{ name: "fs", command: "x", timeout: 0 }], '"mcp.servers.0.timeout": Too small'],
    [
      [{ name: "fs", command: "x", autoconnect: "yes" }],
      '"mcp.servers.0.autoconnect": Invalid input',
    ],
    [
      [{ name: "a", command: "x" }, { name: "a", command: "y" }],
      '"mcp.servers.1.name": server name a is used twice; names must be unique',
    ],
    [
      [{ name: "a", command: "x" }, { name: "b", prefix: "a", command: "y" }],
      '"mcp.servers.1.prefix": servers a and b both use the tool prefix a; give one of them another prefix',
    ],
    [[{ name: "fs", command: "x", bogus: 1 }], '"mcp.servers.0": Unrecognized key: "bogus" bogus'],
    [
      [{ name: "fs", command: "x", oauth: { client_id: "c" } }],
      '"mcp.servers.0.oauth": server fs: oauth applies to transport "http" only',
    ],
    [
      [{ name: "w", transport: "http", url: "http://x", oauth: { client_secret: "s" } }],
      '"mcp.servers.0.oauth": server w: oauth.client_secret needs oauth.client_id (the pre-registered client)',
    ],
    [
      [{
        name: "w",
        transport: "http",
        url: "http://x",
        oauth: { client_metadata_url: "http://x/c" },
      }],
      '"mcp.servers.0.oauth.client_metadata_url": must be an https:// URL with a path',
    ],
  ];
  for (const [servers, message] of wrong) {
    await withHome({ global: { "mcp.servers": servers } }, async (worktree) => {
      await assert.rejects(() => loadConfig(worktree), (err: Error) => {
        assert.ok(err instanceof ConfigError);
        const path = `${Deno.env.get("HOME")}/.config/svc/config.json`;
        assert.ok(err.message.startsWith(`Invalid config in ${path}: ${message}`), err.message);
        return true;
      });
    });
  }
});

Deno.test("an empty config file counts as no settings", async () => {
  await withHome({ local: "" }, async (worktree) => {
    assert.equal((await loadConfig(worktree)).max_tokens, 8192);
  });
});

Deno.test("a config file that is a FIFO, /dev/zero or over 1 MiB is refused at once", async () => {
  await withHome({}, async (worktree) => {
    const path = `${worktree}/.svc/config.json`;
    await Deno.mkdir(`${worktree}/.svc`);
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => new Deno.Command("mkfifo", { args: [path] }).output(), "is not a regular file"],
      [() => Deno.symlink("/dev/zero", path), "is not a regular file"],
      [
        () => Deno.writeTextFile(path, `{"model": "${"m".repeat(1 << 20)}"}`),
        `is larger than the 1 MiB limit (${(1 << 20) + 13} bytes)`,
      ],
    ];
    for (const [make, problem] of cases) {
      await Deno.remove(path).catch(() => {});
      await make();
      await assert.rejects(
        () => loadConfig(worktree),
        new ConfigError(`Config file ${path} ${problem}; fix or remove it`),
      );
    }
  });
});
