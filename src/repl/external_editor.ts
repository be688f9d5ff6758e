/**
 * Ctrl-X Ctrl-E: the prompt in `$VISUAL` (else `$EDITOR`, else `vi`). The live region is erased
 * and the terminal handed over (cooked mode, no bracketed paste) while the editor runs in the
 * REPL's own terminal; what the file holds when it exits becomes the input. The REPL reads no key
 * meanwhile, so every key goes to the editor.
 */
import type { Screen } from "./screen.ts";
import type { Terminal } from "./terminal.ts";

/** The edited text (one trailing newline dropped), or why the editor failed. */
export async function editExternally(
  text: string,
  options: { terminal: Terminal; screen: Screen },
): Promise<{ text: string } | { error: string }> {
  const editor = Deno.env.get("VISUAL") || Deno.env.get("EDITOR") || "vi";
  const path = await Deno.makeTempFile({ prefix: "svc-prompt-", suffix: ".md" });
  try {
    await Deno.writeTextFile(path, text);
    options.screen.suspend();
    options.terminal.stop();
    let ok: boolean;
    try {
      // Through the shell, as git runs it: `$EDITOR` may carry arguments (`code --wait`).
      const child = new Deno.Command("sh", {
        args: ["-c", `${editor} "$1"`, "sh", path],
        stdin: "inherit",
        stdout: "inherit",
        stderr: "inherit",
      }).spawn();
      ok = (await child.status).success;
    } catch (err) {
      return { error: `could not start ${editor}: ${(err as Error).message}` };
    } finally {
      options.terminal.start();
      options.screen.resume();
    }
    if (!ok) return { error: `${editor} failed; the input is unchanged` };
    return { text: (await Deno.readTextFile(path)).replace(/\r?\n$/, "") };
  } finally {
    await Deno.remove(path).catch(() => {});
  }
}
