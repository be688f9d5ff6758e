/**
 * Spawns `main.ts` as a user would, with a temp HOME and worktree, and with the permissions of
 * svc's entry points (never `-A`), so every end-to-end test also proves that set sufficient.
 */
import { SVC_PERMISSIONS } from "../../scripts/permissions.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temp HOME and worktree pair, removed on dispose. */
export async function sandbox(
  files: Record<string, string> = {},
  options: { trusted?: boolean } = {},
) {
  const home = await Deno.makeTempDir({ prefix: "svc-home-" });
  const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "svc-work-" }));
  for (const [name, content] of Object.entries(files)) {
    const path = `${worktree}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, content);
  }
  if (options.trusted) {
    // What `svc trust` writes: the worktree's own config and plugins then apply in full.
    await Deno.mkdir(`${home}/.config/svc`, { recursive: true });
    await Deno.writeTextFile(`${home}/.config/svc/trusted.json`, JSON.stringify([worktree]));
  }
  return {
    home,
    worktree,
    env: { HOME: home, NO_COLOR: "1" },
    async [Symbol.asyncDispose]() {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(worktree, { recursive: true });
    },
  };
}

/** Runs svc to completion. */
export function svc(
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
): Promise<CliResult> {
  return runProcess(
    Deno.execPath(),
    ["run", ...SVC_PERMISSIONS, "--quiet", MAIN, ...args],
    options,
  );
}

/** Runs a program to completion; `stdin` is written to it when given (else it reads nothing). */
export async function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
): Promise<CliResult> {
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Spawns svc and returns the live process (for signals). */
export function spawnSvc(args: string[], options: { cwd: string; env: Record<string, string> }) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...SVC_PERMISSIONS, "--quiet", MAIN, ...args],
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}
