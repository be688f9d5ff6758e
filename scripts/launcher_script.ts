/**
 * The installed `svc` command (scripts/install.ts writes it over the one `deno install` made): a
 * shell script that runs the installed copy with svc's permissions and V8 flags plus `--no-lazy`,
 * under a Deno cache folder of its own (`<lib>/.deno`).
 *
 * Why: with `--no-lazy`, Deno's code cache holds every function svc compiles, not only the top
 * level of each module, which saves 20-40 ms per start. But V8 refuses a cache written under other
 * flags, and Deno caches its Node layer once per cache folder, for every Deno program: in the
 * user's shared folder svc and every other Deno program would keep recompiling it for each other
 * (docs/performance.md). A folder of svc's own has none of that; reinstalling starts it afresh.
 *
 * `deno install` cannot set environment variables, hence this script. svc gives the caller's
 * `DENO_DIR` and `DENO_NO_UPDATE_CHECK` back to its environment at start (src/util/launcher.ts),
 * so what svc runs sees the user's values.
 */
import { LAUNCHER_ENV, OUTER_PREFIX } from "../src/util/launcher.ts";
import { SVC_PERMISSIONS, SVC_V8_OPTIONS } from "../src/util/svc_command.ts";

/** V8 options of the installed command: svc's own plus `--no-lazy` (see above). */
export const LAUNCHER_V8_OPTIONS = [...SVC_V8_OPTIONS, "--no-lazy"] as const;

/** A word quoted for sh. */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The launcher's text. `launcher` is where it is written, `cacheDir` svc's Deno cache folder,
 * `config` the deno.json it runs with and `main` the installed main.js.
 */
export function launcherScript(
  paths: { launcher: string; cacheDir: string; config: string; main: string },
): string {
  const save = LAUNCHER_ENV.map((name) =>
    `unset ${OUTER_PREFIX}${name}; ` +
    `[ "\${${name}+set}" = set ] && export ${OUTER_PREFIX}${name}="$${name}"`
  );
  const mainUrl = new URL(`file://${paths.main}`).href;
  return [
    "#!/bin/sh",
    "# svc, written by `deno task install`: runs the installed copy with its own Deno cache folder",
    "# (see scripts/launcher_script.ts and docs/performance.md). svc gives the caller's DENO_DIR and",
    "# DENO_NO_UPDATE_CHECK back to what it runs.",
    ...save,
    [
      `SVC_LAUNCHER=${quote(paths.launcher)}`,
      `DENO_DIR=${quote(paths.cacheDir)}`,
      "DENO_NO_UPDATE_CHECK=1",
      "exec deno run",
      ...SVC_PERMISSIONS,
      `--v8-flags=${LAUNCHER_V8_OPTIONS.join(",")}`,
      "--config",
      quote(paths.config),
      quote(mainUrl),
      '"$@"',
    ].join(" "),
    "",
  ].join("\n");
}
