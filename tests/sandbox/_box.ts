/** A worktree and a home folder with a stored API key, and commands run as run_command runs them. */
import { ConfigSchema } from "../../src/config/schema.ts";
import { sandboxSettings } from "../../src/sandbox/settings.ts";
import { sandboxKind } from "../../src/sandbox/probe.ts";
import { runShell } from "../../src/tool/shell.ts";
import type { ToolOutput } from "../../src/tool/types.ts";

/** The key the home folder's providers.json holds. */
export const KEY = "sk-test-0123456789-SECRET";

/** Whether bubblewrap runs here, and if not why (a test names it when it is ignored). */
export const SANDBOX = await sandboxKind();

/** A temp folder with `home/.config/svc/providers.json` and a git worktree `wt`. */
export async function attackBox() {
  // Under /var/tmp, not /tmp: the sandbox puts a private folder over /tmp, which would hide the
  // home folder for the wrong reason. A real home sits outside /tmp too.
  const root = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "svc-attack-" }),
  );
  const home = `${root}/home`, worktree = `${root}/wt`;
  await Deno.mkdir(`${home}/.config/svc`, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(
    `${home}/.config/svc/providers.json`,
    JSON.stringify({ openai: { api_key: KEY } }),
  );
  await Deno.writeTextFile(`${home}/notes.txt`, "the person's own file\n");
  await Deno.mkdir(`${worktree}/.git/hooks`, { recursive: true });
  await Deno.writeTextFile(`${worktree}/.git/config`, "[core]\n\tbare = false\n");
  await Deno.writeTextFile(`${worktree}/README.md`, "hello\n");
  return {
    root,
    home,
    worktree,
    /** Runs `command` as run_command would, with `config` over the defaults. */
    run(command: string, config: Record<string, unknown> = {}, timeoutS = 60): Promise<ToolOutput> {
      const settings = sandboxSettings(ConfigSchema.parse(config), worktree, { home });
      return runShell(command, { cwd: worktree, worktree, sandbox: settings, timeoutS });
    },
    /** Runs `command` under plain bash in the worktree with HOME set: the attack without svc. */
    async bare(command: string): Promise<string> {
      const out = await new Deno.Command("bash", {
        args: ["-c", command],
        cwd: worktree,
        env: { HOME: home, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
        clearEnv: true,
        stdin: "null",
      }).output();
      return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}
