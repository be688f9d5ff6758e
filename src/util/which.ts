/** Finding programs on PATH. */

/** The first regular file named `name` in a PATH folder, or null. */
export function which(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    try {
      if (dir && Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch {
      // not here
    }
  }
  return null;
}
