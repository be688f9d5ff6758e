/**
 * `deno task compile`: builds the single `svc` binary with `deno compile`. Honours DENORT_BIN
 * (a local denort base binary) for machines that cannot download one. Bundled plugins are
 * included so dynamic imports of their entries resolve inside the binary, and so is the plugin
 * sandbox's Worker module. The binary carries svc's permission set (scripts/permissions.ts), never
 * `-A`, and the Worker options that sandboxed plugins need.
 */
import { SVC_PERMISSIONS } from "./permissions.ts";
import { SVC_V8_FLAGS } from "./v8_flags.ts";
import { scriptArgs } from "./script_args.ts";

const [given] = scriptArgs(
  "Usage: deno task compile [output]\n\nBuilds the single svc binary at output (default: dist/svc). " +
    "Set DENORT_BIN to a local denort binary where it cannot be downloaded.",
  Deno.args,
);
const out = given ?? "dist/svc";
const env: Record<string, string> = {};
const denort = Deno.env.get("DENORT_BIN");
if (denort) env.DENORT_BIN = denort;
const args = [
  "compile",
  ...SVC_PERMISSIONS,
  ...SVC_V8_FLAGS,
  "--unstable-worker-options",
  "--include",
  "plugins",
  "--include",
  "src/plugin/sandbox_worker.ts",
  "--output",
  out,
  "main.ts",
];
console.error(`deno ${args.join(" ")}${denort ? ` (DENORT_BIN=${denort})` : ""}`);
const status = await new Deno.Command(Deno.execPath(), {
  args,
  env,
  stdout: "inherit",
  stderr: "inherit",
})
  .spawn().status;
if (!status.success) {
  console.error(
    "compile failed; without network access set DENORT_BIN to a denort binary of the same Deno version",
  );
}
Deno.exit(status.code);
