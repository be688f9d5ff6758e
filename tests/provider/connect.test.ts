import assert from "node:assert/strict";
import { join } from "node:path";
import { approvalGate, isApproved, resolveConnection, setEntry } from "../../src/provider/mod.ts";
import type { ProviderDef } from "../../src/plugin/api.ts";

const plugins: ProviderDef[] = [{
  id: "acme",
  baseUrl: "https://llm.acme.test",
  defaultModel: "acme-1",
  headers: { "x-acme": "1" },
}];

async function withHome(fn: (dir: string) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "svc_home_" });
  const old = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  try {
    await fn(join(home, ".config", "svc"));
  } finally {
    if (old === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", old);
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("resolveConnection fills base address, model and key from the table and providers.json", async () => {
  await withHome(async (dir) => {
    await setEntry("openai", { api_key: "sk-1" }, { dir });
    assert.deepEqual(await resolveConnection({ provider: "openai" }), {
      provider: "openai",
      baseUrl: "https://api.openai.com",
      model: "gpt-5",
      apiKey: "sk-1",
      unfolded: false,
      warnings: [],
    });
  });
});

Deno.test("resolveConnection detects the provider from base_url and warns about a missing key", async () => {
  await withHome(async () => {
    assert.deepEqual(
      await resolveConnection({ base_url: "https://opencode.ai/zen/go/", model: "glm-4.6" }),
      {
        provider: "opencode-go",
        baseUrl: "https://opencode.ai/zen/go",
        model: "glm-4.6",
        apiKey: "",
        unfolded: false,
        warnings: [
          "No API key stored for opencode-go; run /connect opencode-go (or svc connect opencode-go) to add one",
        ],
      },
    );
    assert.deepEqual(
      await resolveConnection({
        provider: "my-llm",
        base_url: "http://127.0.0.1:9/v1",
        model: "m",
      }),
      {
        provider: "generic",
        baseUrl: "http://127.0.0.1:9",
        model: "m",
        apiKey: "",
        unfolded: false,
        warnings: [],
      },
    );
  });
});

Deno.test("resolveConnection unfolds provider/model refs", async () => {
  await withHome(async (dir) => {
    await setEntry("anthropic", { api_key: "a-key", base_url: "https://proxy.test" }, { dir });
    const cases: Array<[Record<string, string>, [string, string, string, boolean]]> = [
      [{ model: "anthropic/claude-x" }, ["anthropic", "https://proxy.test", "claude-x", true]],
      [{ provider: "dashscope", model: "opencode/qwen3-coder" }, [
        "opencode",
        "https://opencode.ai/zen",
        "qwen3-coder",
        true,
      ]],
      [{ provider: "opencode", model: "opencode/kimi-k2" }, [
        "opencode",
        "https://opencode.ai/zen",
        "kimi-k2",
        true,
      ]],
      [{ model: "acme/acme-2" }, ["acme", "https://llm.acme.test", "acme-2", true]],
      [{ provider: "openrouter", model: "anthropic/claude-sonnet-4.5" }, [
        "openrouter",
        "https://openrouter.ai/api",
        "anthropic/claude-sonnet-4.5",
        false,
      ]],
      [{ base_url: "http://127.0.0.1:1234", model: "openai/gpt-oss-20b" }, [
        "generic",
        "http://127.0.0.1:1234",
        "openai/gpt-oss-20b",
        false,
      ]],
      [{ provider: "anthropic", model: "claude-y" }, [
        "anthropic",
        "https://proxy.test",
        "claude-y",
        false,
      ]],
    ];
    const resolved = [];
    for (const [config] of cases) {
      const c = await resolveConnection(config, plugins);
      resolved.push([config, [c.provider, c.baseUrl, c.model, c.unfolded]]);
    }
    assert.deepEqual(resolved, cases);
    const acme = await resolveConnection({ provider: "acme" }, plugins);
    assert.deepEqual(acme.headers, { "x-acme": "1" });
  });
});

Deno.test("resolveConnection uses a custom provider stored by /connect <url>", async () => {
  await withHome(async (dir) => {
    await setEntry("lab", { base_url: "http://10.1.2.3:8000", custom: true, api_key: "lk" }, {
      dir,
    });
    assert.deepEqual(await resolveConnection({ provider: "lab", model: "llama" }), {
      provider: "lab",
      baseUrl: "http://10.1.2.3:8000",
      model: "llama",
      apiKey: "lk",
      unfolded: false,
      warnings: [],
    });
  });
});

Deno.test("resolveConnection says what to set when nothing can be resolved", async () => {
  await withHome(async (dir) => {
    await assert.rejects(resolveConnection({ model: "m" }), {
      message: "No model backend is configured: run svc connect <provider|url>, pass --base-url " +
        "(or --provider) to svc run, or set base_url or provider in the config",
    });
    await assert.rejects(resolveConnection({ provider: "generic", model: "m" }), {
      message:
        "No base address for provider generic: pass --base-url or set base_url in the config",
    });
    await assert.rejects(resolveConnection({ base_url: "http://127.0.0.1:9" }), {
      message: "No model configured for generic: pass --model or set model in the config",
    });
    for (const bad of ["notaurl", "ftp://x", "http:///x", "file:///etc/passwd"]) {
      await assert.rejects(resolveConnection({ base_url: bad, model: "m" }), {
        message: `Base address ${bad} for generic is not an http:// or https:// URL; ` +
          "pass --base-url http://host:port or fix base_url in the config",
      });
    }
    await assert.rejects(resolveConnection({ provider: "nope" }), (err: Error) => {
      assert.match(err.message, /^Unknown provider nope: choose one of dashscope, openai, /);
      return true;
    });
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(join(dir, "providers.json"), "{oops");
    const c = await resolveConnection({ base_url: "http://127.0.0.1:9", model: "m" });
    assert.equal(c.warnings.length, 1);
    assert.match(c.warnings[0], /providers\.json is not valid JSON/);
  });
});

Deno.test("approvalGate approves explicit models and refuses unapproved type models", async () => {
  await withHome(async () => {
    await approvalGate({ provider: "openai", model: "gpt-5", explicit: true });
    assert.equal(await isApproved("openai", "gpt-5"), true);

    await assert.rejects(
      approvalGate({
        provider: "anthropic",
        model: "c-1",
        explicit: false,
        referencedByType: true,
      }),
      (err: Error) =>
        err.message.includes("model not approved") &&
        err.message.includes("--approve-model"),
    );
    assert.equal(await isApproved("anthropic", "c-1"), false);

    await approvalGate({
      provider: "openai",
      model: "gpt-5",
      explicit: false,
      referencedByType: true,
    });
    await approvalGate({
      provider: "anthropic",
      model: "c-1",
      explicit: false,
      referencedByType: true,
      approveModel: true,
    });
    assert.equal(await isApproved("anthropic", "c-1"), true);

    await approvalGate({ provider: "generic", model: "local", explicit: false });
    assert.equal(await isApproved("generic", "local"), false);
  });
});

Deno.test("approvalGate refuses an unapproved model unfolded from a config ref in headless runs", async () => {
  await withHome(async () => {
    const configured = {
      provider: "anthropic",
      model: "claude-x",
      explicit: false,
      unfolded: true,
    };
    await assert.rejects(approvalGate(configured), {
      message: "model not approved: anthropic/claude-x comes from the config and is not in " +
        "~/.config/svc/models.json; approve it with svc config set model anthropic/claude-x, " +
        "or pass --model anthropic/claude-x or --approve-model",
    });
    assert.equal(await isApproved("anthropic", "claude-x"), false);

    // A bare model id (with a base_url) is not unfolded: it passes unrecorded, as before.
    await approvalGate({ provider: "generic", model: "local", explicit: false, unfolded: false });
    assert.equal(await isApproved("generic", "local"), false);

    await approvalGate({ ...configured, approveModel: true });
    assert.equal(await isApproved("anthropic", "claude-x"), true);
    await approvalGate(configured);
  });
});

Deno.test("approvalGate asks interactively and refuses a declined model", async () => {
  await withHome(async () => {
    const asked: string[] = [];
    const confirm = (
      p: string,
      m: string,
    ) => (asked.push(`${p}/${m}`), Promise.resolve(m === "yes"));
    await approvalGate({
      provider: "openai",
      model: "yes",
      explicit: false,
      interactive: true,
      confirm,
    });
    await assert.rejects(
      approvalGate({
        provider: "openai",
        model: "no",
        explicit: false,
        interactive: true,
        confirm,
      }),
      { message: "model not approved: openai/no was declined" },
    );
    assert.deepEqual(asked, ["openai/yes", "openai/no"]);
    assert.deepEqual([await isApproved("openai", "yes"), await isApproved("openai", "no")], [
      true,
      false,
    ]);
  });
});
