/**
 * The arguments of a `deno task` script: `--help` (or `-h`) prints its usage and exits 0, and an
 * option the script does not know exits 2 naming it, before anything is built or written. Without
 * this, `deno task bundle --help` took `--help` for its output folder.
 */
export function scriptArgs(
  usage: string,
  args: readonly string[],
  known: readonly string[] = [],
): string[] {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage);
    Deno.exit(0);
  }
  const unknown = args.find((a) => a.startsWith("-") && !known.some((k) => a.startsWith(k)));
  if (unknown) {
    console.error(`unknown option ${unknown}\n\n${usage}`);
    Deno.exit(2);
  }
  return [...args];
}
