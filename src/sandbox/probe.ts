/**
 * Whether an OS sandbox can run here, found once per process: on Linux bubblewrap (`bwrap`) must
 * be on PATH and able to make its namespaces (a kernel or an AppArmor policy may forbid user
 * namespaces); on macOS `sandbox-exec` must exist. Nothing is cached on disk: a fix (installing
 * bubblewrap) counts at the next command svc runs.
 */
import { which } from "../util/which.ts";

/** A sandbox that runs, or why none does and how to fix it. */
export type SandboxKind =
  | { ok: true; kind: "bubblewrap" | "seatbelt"; program: string }
  | { ok: false; reason: string; fix: string };

const PROBE_TIMEOUT_MS = 5000;

let known: { at: string; result: Promise<SandboxKind> } | undefined;
/** The probe's answer once it has settled, for `sandboxKindNow`. */
let settled: { at: string; kind: SandboxKind } | undefined;

/** The sandbox of this machine; probed again when PATH changes (a test, or a fixed PATH). */
export function sandboxKind(): Promise<SandboxKind> {
  const path = Deno.env.get("PATH") ?? "";
  if (known?.at !== path) {
    known = {
      at: path,
      result: probe().then((kind) => {
        settled = { at: path, kind };
        return kind;
      }),
    };
  }
  return known.result;
}

/**
 * The sandbox as far as it is known without starting a process (the system prompt's environment
 * block): the probe's answer when this process has one, else what the files tell (bubblewrap on
 * PATH, sandbox-exec present), which the probe may still refute.
 */
export function sandboxKindNow(): SandboxKind {
  const path = Deno.env.get("PATH") ?? "";
  return settled?.at === path ? settled.kind : withoutProcess();
}

async function probe(): Promise<SandboxKind> {
  const found = withoutProcess();
  if (!found.ok || found.kind !== "bubblewrap") return found;
  const failure = await tryBubblewrap(found.program);
  if (failure === undefined) return found;
  return {
    ok: false,
    reason: `bubblewrap cannot make its namespaces here: ${failure}`,
    fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on " +
      "Ubuntu 24.04 and later an AppArmor profile for bwrap, see docs/security.md), or run " +
      "svc where they are allowed",
  };
}

/** What the files tell: the sandbox program, or why there is none (no process is started). */
function withoutProcess(): SandboxKind {
  if (Deno.build.os === "darwin") {
    const program = "/usr/bin/sandbox-exec";
    try {
      Deno.statSync(program);
      return { ok: true, kind: "seatbelt", program };
    } catch {
      return { ok: false, reason: `${program} is missing`, fix: "reinstall macOS's sandbox-exec" };
    }
  }
  if (Deno.build.os !== "linux") {
    return {
      ok: false,
      reason: `svc has no OS sandbox for ${Deno.build.os}`,
      fix: "run svc under Linux (or WSL 2) or macOS",
    };
  }
  const program = which("bwrap");
  if (!program) {
    return {
      ok: false,
      reason: "bubblewrap (bwrap) is not installed",
      fix: "install it: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install " +
        "bubblewrap (Fedora), sudo pacman -S bubblewrap (Arch)",
    };
  }
  return { ok: true, kind: "bubblewrap", program };
}

/** Runs `true` in the namespaces every sandboxed command uses: undefined, or what failed. */
async function tryBubblewrap(program: string): Promise<string | undefined> {
  const args = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--",
    "true",
  ];
  try {
    const child = new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    }).spawn();
    const { code, stderr } = await child.output();
    if (code === 0) return undefined;
    const said = new TextDecoder().decode(stderr).trim().split("\n").at(-1);
    return said || `exit code ${code}`;
  } catch (err) {
    return (err as Error).message;
  }
}
