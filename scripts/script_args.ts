/**
 * The arguments of a `deno task` script: `--help` (or `-h`) prints its usage and exits 0, and an
 * option exits 2 naming it (unless `options` is "pass": the script hands them on), before anything
 * is built or written. Without this, `deno task bundle --help` took `--help` for its output folder.
 */
export function scriptArgs(
  usage: string,
  args: readonly string[],
  options: "refuse" | "pass" = "refuse",
): string[] {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage);
    Deno.exit(0);
  }
  const unknown = options === "refuse" ? args.find((a) => a.startsWith("-")) : undefined;
  if (unknown) {
    console.error(`unknown option ${unknown}\n\n${usage}`);
    Deno.exit(2);
  }
  return [...args];
}
