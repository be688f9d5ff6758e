/**
 * A small real filesystem that can be filled to ENOSPC: a tmpfs mounted for one test. Mounting
 * needs root (CI and the dev machines run as root); elsewhere `TMPFS_MISSING` says why the tests
 * that need one are ignored.
 */

async function run(command: string, args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(command, { args, stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

async function probe(): Promise<string | null> {
  if (Deno.build.os !== "linux") return "mounting a tmpfs needs Linux";
  if (Deno.uid() !== 0) return "mounting a tmpfs needs root";
  const dir = await Deno.makeTempDir({ prefix: "svc-tmpfs-probe-" });
  try {
    if (!(await run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]))) {
      return "mount -t tmpfs failed (no CAP_SYS_ADMIN here)";
    }
    await run("umount", [dir]);
    return null;
  } finally {
    await Deno.remove(dir).catch(() => {});
  }
}

/** Null when a tmpfs can be mounted here, else the reason the tests that need one are ignored. */
export const TMPFS_MISSING: string | null = await probe();

/** A mounted tmpfs of `kib` KiB: `fill()` takes every free byte, `free()` gives them back. */
export async function mountTmpfs(kib: number) {
  const dir = await Deno.makeTempDir({ prefix: "svc-full-" });
  if (!(await run("mount", ["-t", "tmpfs", "-o", `size=${kib}k`, "tmpfs", dir]))) {
    throw new Error(`Could not mount a tmpfs at ${dir}`);
  }
  const filler = `${dir}/.filler`;
  return {
    dir,
    /** Writes until the filesystem is full (ENOSPC). */
    async fill(): Promise<void> {
      const file = await Deno.open(filler, { write: true, create: true, append: true });
      try {
        const block = new Uint8Array(1024);
        for (;;) await file.write(block);
      } catch (err) {
        if (!(err instanceof Error) || !/No space left/.test(err.message)) throw err;
      } finally {
        file.close();
      }
    },
    async free(): Promise<void> {
      await Deno.remove(filler).catch(() => {});
    },
    async [Symbol.asyncDispose]() {
      await run("umount", ["-l", dir]);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
