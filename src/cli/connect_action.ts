import { configPaths, loadConfigReport } from "../config/load.ts";
import { loadPlugins } from "../plugin/load.ts";
import { planConnect, probeConnection, saveConnection } from "../provider/connect_flow.ts";
import { CORE_PROVIDERS } from "../provider/table.ts";
import { resolveWorktree } from "../runtime/worktree.ts";
import { writeConfigKeys } from "./config_action.ts";
import { USAGE_EXIT } from "./usage.ts";

/** Flags of `svc connect`. */
export interface ConnectFlags {
  keyStdin?: boolean;
  check: boolean;
  saveAnyway?: boolean;
  global?: boolean;
  path?: string;
  json?: boolean;
}

/** Runs `svc connect`; returns the exit code. */
export async function connect(
  target: string | undefined,
  name: string | undefined,
  flags: ConnectFlags,
): Promise<number> {
  const interactive = Deno.stdin.isTerminal() && !flags.keyStdin;
  if (!target && !interactive) {
    console.error("svc connect: name a provider or URL: svc connect <provider|url> [name]");
    return USAGE_EXIT;
  }
  try {
    const worktree = resolveWorktree(flags.path);
    const { config, trusted } = await loadConfigReport(worktree);
    const loaded = await loadPlugins({ worktree, names: config.plugins, trustLocal: trusted });
    loaded.close(); // only their providers are needed
    const { providers } = loaded;
    target ??= await pickTarget(providers.map((p) => p.id));
    const plan = await planConnect(target, name, providers);
    let apiKey = plan.storedKey;
    if (flags.keyStdin) {
      apiKey = (await new Response(Deno.stdin.readable).text()).trim();
    } else if (interactive) {
      const { password } = await import("@inquirer/prompts");
      const typed = await password({
        message: `API key for ${plan.provider}${
          plan.storedKey ? " (Enter keeps the stored key)" : ""
        }`,
        mask: "*",
      });
      if (typed.trim()) apiKey = typed.trim();
    }
    let models: string[] | null = null;
    let probeError: string | null = null;
    const skipped = !flags.check
      ? "--no-check"
      : !config.connect_check
      ? "connect_check is false"
      : "";
    if (!skipped) {
      const probe = await probeConnection(plan, apiKey);
      if (probe.ok) models = probe.models;
      else if (!flags.saveAnyway && !(interactive && await confirmSave(probe.error))) {
        throw new Error(`${probe.error}; nothing was saved (pass --save-anyway to keep it)`);
      } else probeError = probe.error;
    }
    const saved = await saveConnection(plan, apiKey);
    if (saved.warning) console.error(`warning: ${saved.warning}`);
    const paths = configPaths(worktree);
    const configPath = flags.global ? paths.global : paths.local;
    await writeConfigKeys(configPath, { provider: plan.provider, base_url: plan.baseUrl });
    const result = {
      provider: plan.provider,
      base_url: plan.baseUrl,
      key_stored: Boolean(apiKey),
      checked: !skipped,
      probe_error: probeError,
      models: models ?? [],
      config: configPath,
    };
    if (flags.json) console.log(JSON.stringify(result, null, 2));
    else {
      const where = `${plan.provider} at ${plan.baseUrl}`;
      const written = `provider and base_url written to ${configPath}`;
      console.log(
        probeError !== null
          ? `Saved ${where}, but the probe failed: ${probeError}; ${written}`
          : `Connected ${where} (${
            models ? `${models.length} models` : `not checked: ${skipped}`
          }); ${written}`,
      );
      if (!apiKey) console.log("No API key stored (fine for local servers)");
    }
    return 0;
  } catch (err) {
    console.error(`svc connect: ${(err as Error).message}`);
    return 1;
  }
}

async function pickTarget(pluginIds: string[]): Promise<string> {
  const { select, input } = await import("@inquirer/prompts");
  const choices = [...CORE_PROVIDERS.filter((p) => p.baseUrl).map((p) => p.id), ...pluginIds];
  const picked = await select({
    message: "Provider",
    choices: [...choices.map((value) => ({ value })), { value: "(a URL)" }],
  });
  return picked === "(a URL)" ? await input({ message: "Base URL" }) : picked;
}

async function confirmSave(error: string): Promise<boolean> {
  const { confirm } = await import("@inquirer/prompts");
  console.error(error);
  return await confirm({ message: "Save anyway?", default: false });
}
