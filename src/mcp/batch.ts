/** The last MCP revision that allowed JSON-RPC batches; 2025-06-18 removed them. */
export const LAST_BATCH_REVISION = "2025-03-26";

/**
 * Why a POST /mcp body that is a JSON-RPC batch (an array) is refused, or null to serve it. A
 * batch is served only in the revisions that had them: `MCP-Protocol-Version` absent (the
 * transport then assumes 2025-03-26) or at most 2025-03-26; `initialize` never comes in one.
 * Modern (2026-07-28) batches carry the header too, so they are refused here as well.
 */
export function refuseBatch(body: unknown, protocolVersion: string | null): string | null {
  if (!Array.isArray(body)) return null;
  if (protocolVersion !== null && protocolVersion.trim() > LAST_BATCH_REVISION) {
    return `Invalid Request: JSON-RPC batches were removed in MCP revision 2025-06-18 and this ` +
      `request speaks ${protocolVersion.trim()}; send one JSON-RPC message per POST`;
  }
  if (body.some((m) => m && typeof m === "object" && m.method === "initialize")) {
    return "Invalid Request: initialize must be sent alone, not in a JSON-RPC batch";
  }
  return null;
}
