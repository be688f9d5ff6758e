/**
 * The installed `svc` command (scripts/install.ts writes it over the one `deno install` made): a
 * shell script that runs the installed copy with svc's permissions and V8 flags plus `--no-lazy`,
 * under a Deno cache folder of its own (`<lib>/.deno`); `svc serve` with SERVE_V8_OPTIONS instead
 * (no `--no-lazy`), under `<lib>/.deno-serve`.
 *
 * Why: with `--no-lazy`, Deno's code cache holds every function svc compiles, not only the top
 * level of each module, which saves 20-40 ms per start. But V8 refuses a cache written under other
 * flags, and Deno caches its Node layer once per cache folder, for every Deno program: in the
 * user's shared folder svc and every other Deno program would keep recompiling it for each other
 * (docs/performance.md). A folder of svc's own has none of that; reinstalling starts it afresh.
 *
 * `deno install` cannot set environment variables, hence this script. svc gives the caller's
 * `DENO_DIR` and `DENO_NO_UPDATE_CHECK` back to its environment at start (src/launch/launcher.ts),
 * so what svc runs sees the user's values.
 *
 * The script runs the Deno binary that ran the install, by its absolute path, never the `deno` first
 * on PATH: that can be the npm package's Node wrapper (`bin.cjs`), which runs the binary as its
 * child and passes no signal on, so `kill` would stop the wrapper and leave svc (and everything it
 * started) running. With `exec` of the binary itself, the pid the user sees is svc's. svc starts
 * itself again through this script (src/launch/svc_command.ts), so its fleet agents, supervisor and
 * `svc` MCP servers run that binary too. When the binary is gone (Deno upgraded or moved), the
 * script says to install again instead of starting another Deno.
 */
import { LAUNCHER_ENV, OUTER_PREFIX } from "../src/launch/launcher.ts";
import { SVC_PERMISSIONS, SVC_V8_OPTIONS } from "../src/launch/svc_command.ts";

/** V8 options of the installed command: svc's own plus `--no-lazy` (see above). */
export const LAUNCHER_V8_OPTIONS = [...SVC_V8_OPTIONS, "--no-lazy"] as const;

/**
 * `svc serve` (every fleet agent is one) stays up, so what it holds counts more than its start.
 * It runs without `--no-lazy`, compiling a function when it first runs (an idle server held 5.5
 * MiB less; its first request pays the compiling once), and with a young generation of 2 MiB
 * semi-spaces instead of svc's 1, which promotes less of a turn's garbage to the old generation:
 * after 1,500 turns 92 MiB, 6 MiB above turn 300, against 94-99 and 11-17 with 1, at about the
 * same CPU per turn and no more per streamed answer. Under a cache folder of its own (`<lib>/.deno-serve`): V8
 * refuses a cache written under other flags, so sharing one with the other commands would have
 * each recompile for the other. `--optimize-for-size` was tried and dropped: steadier still, but a
 * 200 KB answer cost the server 3.5 times the CPU (docs/performance.md, ninth round).
 */
export const SERVE_V8_OPTIONS = ["--max-semi-space-size=2"] as const;

/** The first argument that selects SERVE_V8_OPTIONS. */
export const SERVE_COMMAND = "serve";

/** A word quoted for sh. */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The first bytes of a native executable: ELF, Mach-O (32 and 64 bit, both byte orders), fat. */
const NATIVE_MAGIC = [
  [0x7f, 0x45, 0x4c, 0x46],
  [0xfe, 0xed, 0xfa, 0xce],
  [0xfe, 0xed, 0xfa, 0xcf],
  [0xce, 0xfa, 0xed, 0xfe],
  [0xcf, 0xfa, 0xed, 0xfe],
  [0xca, 0xfe, 0xba, 0xbe],
];

/**
 * Why `path` cannot be the Deno the launcher runs, or null when it can: it must be an executable
 * file that is a native binary (ELF or Mach-O), not a script such as npm's Node wrapper.
 */
export async function notNativeDeno(path: string): Promise<string | null> {
  let head: Uint8Array;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.mode === null || (info.mode & 0o111) === 0) {
      return `${path} is not an executable file`;
    }
    using file = await Deno.open(path);
    head = new Uint8Array(4);
    let got = 0;
    while (got < head.length) {
      const n = await file.read(head.subarray(got));
      if (n === null) break;
      got += n;
    }
    head = head.subarray(0, got);
  } catch (err) {
    return `${path} cannot be read (${(err as Error).message})`;
  }
  if (NATIVE_MAGIC.some((magic) => magic.every((byte, i) => head[i] === byte))) return null;
  const script = head[0] === 0x23 && head[1] === 0x21; // "#!"
  return `${path} is ${script ? "a script" : "not a native executable"}, not the Deno binary`;
}

/**
 * The launcher's text. `deno` is the absolute path of the Deno binary it runs (the one that ran the
 * install), `launcher` where it is written, `cacheDir` svc's Deno cache folder, `config` the
 * deno.json it runs with and `main` the installed main.js.
 */
export function launcherScript(
  paths: { deno: string; launcher: string; cacheDir: string; config: string; main: string },
): string {
  const save = LAUNCHER_ENV.map((name) =>
    `unset ${OUTER_PREFIX}${name}; ` +
    `[ "\${${name}+set}" = set ] && export ${OUTER_PREFIX}${name}="$${name}"`
  );
  const mainUrl = new URL(`file://${paths.main}`).href;
  const gone = `svc: ${paths.deno}, the Deno that svc was installed with, is gone or not ` +
    "executable (Deno upgraded or moved?); install svc again: run `deno task install` in the svc " +
    "checkout";
  return [
    "#!/bin/sh",
    "# svc, written by `deno task install`: runs the installed copy with its own Deno cache folder",
    "# (see scripts/launcher_script.ts and docs/performance.md). svc gives the caller's DENO_DIR and",
    "# DENO_NO_UPDATE_CHECK back to what it runs. It runs the Deno binary that installed it, by its",
    "# path: the `deno` on PATH may be a wrapper that keeps signals from reaching svc.",
    `[ -x ${quote(paths.deno)} ] || {`,
    `  echo ${quote(gone)} >&2`,
    "  exit 127",
    "}",
    ...save,
    "# `svc serve` stays up: it compiles lazily, under a cache folder of its own (see above).",
    `if [ "$1" = ${SERVE_COMMAND} ]; then`,
    `  ${run(`${paths.cacheDir}-serve`, SERVE_V8_OPTIONS)}`,
    "fi",
    run(paths.cacheDir, LAUNCHER_V8_OPTIONS),
    "",
  ].join("\n");

  function run(cacheDir: string, v8: readonly string[]): string {
    return [
      `SVC_LAUNCHER=${quote(paths.launcher)}`,
      `DENO_DIR=${quote(cacheDir)}`,
      "DENO_NO_UPDATE_CHECK=1",
      `exec ${quote(paths.deno)} run`,
      ...SVC_PERMISSIONS,
      `--v8-flags=${v8.join(",")}`,
      "--config",
      quote(paths.config),
      quote(mainUrl),
      '"$@"',
    ].join(" ");
  }
}
