import { classifyInboundRequest, type JSONRPCRequest } from "@modelcontextprotocol/server";

/** A JSON-RPC error answer to one request. */
export interface EraRefusal {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * The per-request `_meta` rule of POST /mcp, applied to a stdio connection: HTTP checks each
 * request against its MCP-Protocol-Version header; on stdio the revision a modern request opened
 * the connection with (`server/discover` included) takes the header's place, and each later
 * request is classified by the SDK's own `classifyInboundRequest` with it, so one without its
 * `_meta` envelope is -32602 on both transports. Until then, and after a legacy `initialize`
 * (the fallback of a client whose probe failed), nothing is checked here: the SDK's stdio
 * serving decides the era.
 */
export class StdioEra {
  #revision: string | undefined;
  #legacy = false;

  /** Why `request` is refused, or null to pass it on. */
  check(request: JSONRPCRequest): EraRefusal | null {
    if (this.#legacy) return null;
    if (this.#revision === undefined) {
      const opening = classifyInboundRequest({ httpMethod: "POST", body: request });
      if (opening.kind === "modern") this.#revision = opening.classification.revision;
      else if (request.method === "initialize") this.#legacy = true;
      return null;
    }
    if (request.method === "initialize") {
      this.#legacy = true;
      return null;
    }
    const outcome = classifyInboundRequest({
      httpMethod: "POST",
      body: request,
      protocolVersionHeader: this.#revision,
    });
    if (outcome.kind !== "reject") return null;
    return {
      code: outcome.code,
      message: outcome.message,
      ...(outcome.data !== undefined ? { data: outcome.data } : {}),
    };
  }
}
