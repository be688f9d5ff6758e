/**
 * The stand-in connection of an engine built without a model backend (tools only, the REPL's
 * `/tool` before `/connect`): every model call fails with the reason there is no backend.
 */
import type { ChatClient } from "../provider/types.ts";

/** A connection named `none/none` whose client answers every call with `reason` as an error. */
export function noModel(reason: string): { provider: string; model: string; client: ChatClient } {
  const client: ChatClient = {
    provider: "none",
    baseUrl: "",
    async *chat() {
      yield { type: "error", code: "no_model", message: reason };
    },
    chatNonStreaming: () => Promise.resolve({ content: "", error: reason }),
    listModels: () => Promise.reject(new Error(reason)),
    redact: (text) => text,
  };
  return { provider: "none", model: "none", client };
}
