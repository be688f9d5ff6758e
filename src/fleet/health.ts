/** The supervisor's health probe: `GET /health` on the agent's loopback port. */

/** A probe's outcome: healthy, or why not. */
export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** `GET http://127.0.0.1:<port>/health` with a timeout; healthy on a 2xx answer. */
export async function probeHealth(port: number, timeoutMs: number): Promise<ProbeResult> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return response.ok
      ? { ok: true }
      : { ok: false, reason: `/health answered ${response.status}` };
  } catch (err) {
    const error = err as Error;
    if (error.name === "TimeoutError") {
      return { ok: false, reason: `/health did not answer within ${timeoutMs / 1000} s` };
    }
    return { ok: false, reason: `/health failed: ${error.message}` };
  }
}
