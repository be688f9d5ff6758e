/** The tool error for a converter or search parser module that failed to load. */

/**
 * Names htmlparser2, the npm package those modules import, and how to get it: the installed build
 * carries it, a source checkout fetches it into its Deno cache on first use.
 */
export function parserLoadError(error: unknown): string {
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return "Could not load the HTML parser (npm package htmlparser2, see deno.json): " +
    `${reason}. Run \`deno install\` in svc's checkout with network access, or reinstall svc ` +
    "(deno task install)";
}
