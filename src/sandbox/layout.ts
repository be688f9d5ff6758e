/**
 * What a sandboxed command sees of the file system, found on the host just before it starts:
 * every path canonical (a symbolic link is resolved here, so a bind can never be redirected by
 * one inside the sandbox), and only paths that exist.
 */
import type { SandboxSettings } from "./settings.ts";
import { dirname, join } from "../util/posix_path.ts";
import { isInside } from "../util/canonical_path.ts";

/** The mounts of one command, from the bottom up (bwrap.ts and seatbelt.ts render them). */
export interface SandboxLayout {
  /** Read-write binds, in order: the worktree (workspace-write) and allowWrite. */
  writable: string[];
  /** Read-only binds over writable ones: denyWrite and the control files inside the worktree. */
  readOnly: string[];
  /** Hidden folders (an empty tmpfs over each). */
  hiddenDirs: string[];
  /** Hidden files (/dev/null over each). */
  hiddenFiles: string[];
  /** The host folder bound at /tmp, private to this command. */
  temp: string;
  /** Whether the network namespace is shared (no isolation). */
  shareNetwork: boolean;
  /**
   * The network proxy's host folder and where it appears under /tmp (read-only), when
   * sandbox.network.allowedDomains lets the command reach some hosts (bridge.ts).
   */
  proxyBind?: { source: string; target: string };
  /**
   * Folders under the host's /tmp the private /tmp would hide but a command needs to read: svc's
   * own code (a checkout in /tmp: the bridge, a plugin's process, servers in it), Deno and its
   * cache (DENO_DIR). Bound read-only right after /tmp.
   */
  tmpReadable?: string[];
}

/**
 * Files inside a writable worktree that would run code later, outside the sandbox: git hooks and
 * configuration (core.fsmonitor, aliases, filters), a `.git` file that points git elsewhere, and
 * svc's own `.svc/` (a trusted worktree's config loosens the policy).
 */
export const CONTROL_PATHS = [
  ".git/hooks",
  ".git/config",
  ".git/config.worktree",
  ".git/modules",
  ".git/info",
  ".svc",
] as const;

/**
 * The layout of a command in `worktree` with `settings`; `temp` is its private temp folder.
 * `createControlFolders: false` (`svc sandbox status`) creates nothing in the worktree and lists
 * the control folders a command's layout would create as read-only all the same.
 */
export async function sandboxLayout(
  settings: SandboxSettings,
  { worktree, temp, shareNetwork = false, createControlFolders = true }: {
    worktree: string;
    temp: string;
    shareNetwork?: boolean;
    createControlFolders?: boolean;
  },
): Promise<SandboxLayout> {
  const root = await canonical(worktree) ?? worktree;
  const writable: string[] = [];
  if (settings.mode === "workspace-write") {
    writable.push(root);
    for (const path of settings.allowWrite) {
      const real = await canonical(path);
      if (real) writable.push(real);
    }
  }
  const readOnly: string[] = [];
  if (writable.length) {
    if (createControlFolders) await prepareControlPaths(root);
    for (const name of [".git", ...CONTROL_PATHS]) {
      const real = await canonical(join(root, name));
      // `.git` itself only when it is a file (`gitdir: ...`), which a command could repoint.
      if (!real || (name === ".git" && (await Deno.lstat(real)).isDirectory)) continue;
      readOnly.push(real);
    }
    if (!createControlFolders) readOnly.push(...await unmadeControlFolders(root));
    for (const path of settings.denyWrite) {
      const real = await canonical(path);
      if (real) readOnly.push(real);
    }
  }
  const hiddenDirs: string[] = [], hiddenFiles: string[] = [];
  for (const path of settings.denyRead) {
    const real = await canonical(path);
    if (!real || real === "/" || hiddenDirs.includes(real) || hiddenFiles.includes(real)) continue;
    ((await Deno.stat(real)).isDirectory ? hiddenDirs : hiddenFiles).push(real);
  }
  return {
    writable,
    readOnly: unique(readOnly),
    hiddenDirs,
    hiddenFiles,
    temp,
    shareNetwork,
    tmpReadable: await svcFoldersInTmp(),
  };
}

/** Deno's cache folder: DENO_DIR, else the platform's cache folder. */
export function denoDir(): string {
  const home = Deno.env.get("HOME") ?? "/";
  return Deno.env.get("DENO_DIR") ||
    join(Deno.env.get("XDG_CACHE_HOME") || join(home, ".cache"), "deno");
}

/** svc's code, Deno's binary folder and its cache, where they lie under /tmp (canonical). */
async function svcFoldersInTmp(): Promise<string[]> {
  const here = new URL(import.meta.url);
  if (here.protocol !== "file:") return [];
  // src/sandbox/layout.ts in a checkout (its root holds deno.json and node_modules), else the
  // folder of the bundle this code was built into.
  const code = here.pathname.endsWith("/src/sandbox/layout.ts")
    ? new URL("../../", here).pathname
    : new URL("./", here).pathname;
  const found: string[] = [];
  for (const path of [code, dirname(Deno.execPath()), denoDir()]) {
    const real = await canonical(path);
    if (real && real !== "/tmp" && isInside("/tmp", real) && !found.includes(real)) {
      found.push(real);
    }
  }
  return found;
}

/**
 * Creates the control folders a command could otherwise create itself (`.svc/`, and
 * `.git/hooks/` in a repository), so each can be bound read-only.
 */
async function prepareControlPaths(root: string): Promise<void> {
  await Deno.mkdir(join(root, ".svc"), { recursive: true }).catch(() => {});
  try {
    if ((await Deno.lstat(join(root, ".git"))).isDirectory) {
      await Deno.mkdir(join(root, ".git", "hooks"), { recursive: true });
    }
  } catch {
    // not a repository, or its .git is a file
  }
}

/** The control folders `prepareControlPaths` would create in `root`. */
async function unmadeControlFolders(root: string): Promise<string[]> {
  const wanted = [join(root, ".svc")];
  try {
    if ((await Deno.lstat(join(root, ".git"))).isDirectory) {
      wanted.push(join(root, ".git", "hooks"));
    }
  } catch {
    // not a repository, or its .git is a file
  }
  const missing: string[] = [];
  for (const path of wanted) if (!(await canonical(path))) missing.push(path);
  return missing;
}

/** The canonical path of an existing file or folder, else undefined. */
async function canonical(path: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(path);
  } catch {
    return undefined;
  }
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
