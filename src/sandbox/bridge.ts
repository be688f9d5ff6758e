/**
 * The network of a sandboxed command whose config allows some domains (docs/security.md): the
 * command keeps its own empty network namespace; svc starts a filtering proxy (proxy.ts) on a Unix
 * socket in `.svc-net/` of the command's private temp folder, bound again read-only at
 * /tmp/.svc-net (so the command can neither replace nor remove it). A wrapper inside the sandbox
 * starts a bridge (the Deno running svc, on a script in that folder) that listens on 127.0.0.1 and
 * relays each connection to the socket, waits for its ready line, sets the proxy variables and
 * execs the command. Everything ends with the command: the bridge dies with the sandbox's PID namespace, the
 * proxy when the caller cleans up.
 */
import type { SandboxSettings } from "./settings.ts";
import { type NetworkProxy, startNetworkProxy } from "./proxy.ts";
import { which } from "../util/which.ts";
import { join } from "../util/posix_path.ts";

/** Where the proxy's folder appears inside the sandbox. */
export const NETWORK_MOUNT = "/tmp/.svc-net";

/** A proxy ready for one command: the bind, the words that start the command, the undo. */
export interface SandboxNetwork {
  /** The host folder holding the socket and the bridge, bound read-only at `target`. */
  bind: { source: string; target: string };
  /** The wrapper's words; the command (with its limits) follows. */
  prefix: string[];
  /** Stops the proxy (its folder goes with the command's temp folder). */
  close(): Promise<void>;
}

/**
 * The bridge inside the sandbox: listens on 127.0.0.1 (port chosen by the kernel), prints the
 * port and closes stdout (the ready line), then relays each connection to the proxy's socket.
 */
export const BRIDGE_SOURCE = `
const socket = Deno.args[0];
const MAX = 256;
let open = 0;
let listener;
try {
  listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
} catch (err) {
  console.error("svc network bridge: " + err.message);
  Deno.exit(1);
}
await Deno.stdout.write(new TextEncoder().encode(listener.addr.port + "\\n"));
Deno.stdout.close();
const close = (conn) => { try { conn.close(); } catch { /* closed */ } };
const pump = async (from, to) => {
  const buffer = new Uint8Array(65536);
  try {
    for (;;) {
      const n = await from.read(buffer);
      if (n === null) break;
      let offset = 0;
      while (offset < n) offset += await to.write(buffer.subarray(offset, n));
    }
    await to.closeWrite();
  } catch {
    close(from);
    close(to);
  }
};
const relay = async (conn) => {
  let up;
  try {
    up = await Deno.connect({ transport: "unix", path: socket });
  } catch {
    close(conn);
    return;
  }
  await Promise.all([pump(conn, up), pump(up, conn)]);
  close(conn);
  close(up);
};
for await (const conn of listener) {
  if (open >= MAX) {
    close(conn);
    continue;
  }
  open++;
  relay(conn).finally(() => open--);
}
`;

/**
 * The wrapper (sh): $1 the Deno binary, $2 the bridge script, $3 the socket, then the command.
 * A bridge that does not start stops the command before it runs.
 */
const WRAPPER = `
ready=/tmp/.svc-net-ready
rm -f "$ready" && mkfifo -m 600 "$ready" || {
  echo "svc sandbox: cannot prepare the network bridge; the command did not run" >&2; exit 126; }
DENO_NO_UPDATE_CHECK=1 DENO_NO_PROMPT=1 "$1" run --no-config --no-lock --no-remote --no-npm \\
  --quiet --no-prompt --allow-net="127.0.0.1,unix:$3" --allow-read="$3" --allow-write="$3" \\
  "$2" "$3" >"$ready" </dev/null &
IFS= read -r port <"$ready"
rm -f "$ready"
case "$port" in ""|*[!0-9]*)
  echo "svc sandbox: the network bridge did not start, so the network that" \\
    "sandbox.network.allowedDomains allows is missing; the command did not run" >&2
  exit 126;;
esac
proxy="http://127.0.0.1:$port"
export HTTP_PROXY="$proxy" HTTPS_PROXY="$proxy" http_proxy="$proxy" https_proxy="$proxy"
export ALL_PROXY="$proxy" all_proxy="$proxy" NO_PROXY= no_proxy= NODE_USE_ENV_PROXY=1
shift 3
exec "$@"
`;

/**
 * The proxy and bridge of one command under `settings`, kept in its private temp folder `temp`
 * (the host side of /tmp): undefined when no domain is allowed (the
 * network stays off), or the reason it cannot be given (svc compiled, nothing to bridge with).
 */
export async function sandboxNetwork(
  settings: Pick<SandboxSettings, "allowedDomains" | "deniedDomains">,
  temp: string,
): Promise<{ ok: true; network: SandboxNetwork } | { ok: false; error: string } | undefined> {
  if (!settings.allowedDomains.length) return undefined;
  const refused = (why: string) => ({
    ok: false as const,
    error: `refused: sandbox.network.allowedDomains lets this command reach ` +
      `${settings.allowedDomains.join(", ")}, but ${why}; the command did not run. Remove ` +
      `sandbox.network.allowedDomains to run commands without a network`,
  });
  if (Deno.build.standalone) {
    return refused(
      "svc runs as a compiled binary, which cannot start the network bridge " +
        "inside the sandbox (run svc with deno run instead)",
    );
  }
  const shell = which("sh");
  if (!shell) return refused("no sh is on PATH to start the network bridge");
  const dir = join(temp, ".svc-net");
  let proxy: NetworkProxy;
  try {
    await Deno.mkdir(dir, { mode: 0o700 });
    await Deno.writeTextFile(join(dir, "bridge.js"), BRIDGE_SOURCE);
    proxy = startNetworkProxy(join(dir, "proxy.sock"), {
      allowed: settings.allowedDomains,
      denied: settings.deniedDomains,
    });
  } catch (err) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    return refused(`the network proxy could not start: ${(err as Error).message}`);
  }
  const inside = (name: string) => join(NETWORK_MOUNT, name);
  return {
    ok: true,
    network: {
      bind: { source: dir, target: NETWORK_MOUNT },
      prefix: [
        shell,
        "-c",
        WRAPPER,
        "svc-net",
        Deno.execPath(),
        inside("bridge.js"),
        inside("proxy.sock"),
      ],
      close: () => proxy.close(),
    },
  };
}
