/** `svc fleet config <name>`: only the keys given, written into the agent's `.svc/config.json`. */
import { configPaths } from "../config/load.ts";
import type { ToolPermission } from "../config/schema.ts";
import { isTrusted } from "../config/trust.ts";
import { writeConfigKeys } from "../config/write.ts";
import { Runtime } from "../runtime/runtime.ts";
import { UsageError } from "../shared/usage_error.ts";
import { FleetError } from "./daemon.ts";
import { agentDir } from "./roster.ts";
import { agentNamed } from "./roster_commands.ts";

const say = (text: string) => console.log(text);
const note = (text: string) => console.error(text);

/** What `fleet config` writes; each key given is written, the others are left alone. */
export interface ConfigureOptions {
  provider?: string;
  model?: string;
  mode?: "plan" | "build";
  systemPrompt?: string;
  toolsDeny?: string[];
  toolPermission?: ToolPermission;
  /** An agent type whose system_prompt, model and tool_permission are inlined. */
  type?: string;
  approveModel?: boolean;
}

/**
 * `fleet config <name>`: writes only the keys given into `<dir>/.svc/config.json`. `type`
 * inlines the type's system_prompt, model and tool_permission (the other options win over it); an
 * unknown type aborts the write, and so does a model the approval gate refuses.
 */
export async function configureAgent(
  root: string,
  name: string,
  options: ConfigureOptions,
): Promise<number> {
  const def = await agentNamed(root, name);
  const dir = agentDir(root, def);
  const patch: Record<string, unknown> = {};
  let runtime: Runtime | undefined;
  const load = async () => runtime ??= await Runtime.load({ path: dir });
  try {
    if (options.type !== undefined) {
      const catalog = await (await load()).catalog();
      const type = catalog.types.get(options.type);
      if (!type) {
        const names = [...catalog.types.keys()].sort().join(", ");
        throw new FleetError(
          `unknown type "${options.type}" (available types: ${names}); nothing was written`,
        );
      }
      patch.system_prompt = type.system_prompt;
      if (type.model) patch.model = type.model;
      for (const [category, action] of Object.entries(type.tool_permission ?? {})) {
        patch[`tool_permission.${category}`] = action;
      }
    }
    if (options.provider !== undefined) patch.provider = options.provider;
    if (options.model !== undefined) patch.model = options.model;
    if (options.mode !== undefined) patch.mode = options.mode;
    if (options.systemPrompt !== undefined) patch.system_prompt = options.systemPrompt;
    if (options.toolsDeny !== undefined) patch["tools.deny"] = options.toolsDeny;
    for (const [key, value] of Object.entries(options.toolPermission ?? {})) {
      patch[`tool_permission.${key}`] = value;
    }
    if (Object.keys(patch).length === 0 && !options.approveModel) {
      throw new UsageError(
        "give at least one of --provider, --model, --mode, --system-prompt, --tools-deny, " +
          "--tool-permission, --type",
      );
    }
    let warning: string | undefined;
    if (patch.model !== undefined || patch.provider !== undefined || options.approveModel) {
      warning = await checkModel(await load(), patch, options);
    }
    const path = configPaths(dir).local;
    if (Object.keys(patch).length) {
      const { problems } = await writeConfigKeys(path, patch);
      say(`wrote ${Object.keys(patch).join(", ")} to ${path}`);
      for (const problem of problems) note(`note: ${problem}`);
      say(`the agent reads it when it starts: svc fleet restart ${name}`);
    }
    if (warning) note(`note: ${warning}`);
    if (!(await isTrusted(dir))) {
      note(
        `note: ${dir} is not trusted, so this config may only tighten the policy; ` +
          `svc trust ${dir} lets it apply in full`,
      );
    }
    return 0;
  } finally {
    runtime?.plugins.close();
  }
}

/**
 * The model approval gate for the model the agent will use: a `--model` is the operator's
 * choice (approved and recorded, as `svc config set model` does), a model only the type names
 * needs `--approve-model` (or an earlier approval). A refused model throws (nothing is written);
 * a backend that cannot be resolved yet is only a warning.
 */
async function checkModel(
  runtime: Runtime,
  patch: Record<string, unknown>,
  options: ConfigureOptions,
): Promise<string | undefined> {
  try {
    const connection = await runtime.connect({
      provider: patch.provider as string | undefined,
      model: patch.model as string | undefined,
      modelFrom: options.model !== undefined ? "flag" : "type",
      approveModel: options.approveModel,
    });
    if (options.approveModel || options.model !== undefined) {
      say(`approved ${connection.provider}/${connection.model} for headless runs`);
    }
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    if (message.startsWith("model not approved")) {
      throw new FleetError(`${message}; nothing was written`);
    }
    return `the agent cannot reach a model yet: ${message}`;
  }
}
