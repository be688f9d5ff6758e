/** Port allocation by bind probe: a port is free when this process can listen on it now. */

/** Whether `port` on 127.0.0.1 can be bound right now. */
export function isPortFree(port: number, hostname = "127.0.0.1"): boolean {
  try {
    const listener = Deno.listen({ hostname, port, transport: "tcp" });
    listener.close();
    return true;
  } catch {
    return false;
  }
}

/** No port of the range (nor the preferred ones) could be bound. */
export class PortsExhaustedError extends Error {
  override name = "PortsExhaustedError";
}

/**
 * The first port that binds, trying `prefer` (prefer_port, then the agent's previous port) and
 * then the range in order, skipping `taken` (ports other agents hold, even while they start and
 * have not bound yet). Throws PortsExhaustedError saying what to do when none binds.
 */
export function allocatePort(
  range: { first: number; last: number },
  { prefer, taken, probe = isPortFree }: {
    prefer: readonly (number | undefined)[];
    taken: ReadonlySet<number>;
    probe?: (port: number) => boolean;
  },
): number {
  const tried = new Set<number>();
  const candidates = function* () {
    for (const port of prefer) if (port !== undefined) yield port;
    for (let port = range.first; port <= range.last; port++) yield port;
  };
  for (const port of candidates()) {
    if (tried.has(port) || taken.has(port)) continue;
    tried.add(port);
    if (probe(port)) return port;
  }
  const preferred = prefer.filter((p) => p !== undefined);
  throw new PortsExhaustedError(
    `no free port in ${range.first}-${range.last}` +
      (preferred.length ? ` (nor the preferred ${preferred.join(", ")})` : "") +
      `: every one is in use; stop what holds them, give the agent a free prefer_port ` +
      `(svc fleet add --port), or set SVC_FLEET_PORT_RANGE to a wider range`,
  );
}
