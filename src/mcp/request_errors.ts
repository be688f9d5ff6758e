/**
 * The MCP SDK reports through `onerror` both its own failures and a client's bad requests (a
 * missing Accept type is a 406, a non-JSON body a 400) right before it answers them. The errors
 * of one request are held until its reply's status is known: under a 4xx they are the client's
 * (`onClientError`), otherwise the server's (`onError`), so a client's mistake is never logged
 * as a server error. Errors reported outside a request, or after its reply, go to `onError`.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Where the errors of served MCP requests go. */
export interface RequestErrorSinks {
  /** A failure of the server. */
  onError?: (error: Error) => void;
  /** A request the server refused as the client's error (its 4xx status). */
  onClientError?: (error: Error, status: number) => void;
}

/** The SDK's `onerror` (`report`) and the wrapper that runs one request (`around`). */
export interface RequestErrors {
  report(error: Error): void;
  around(answer: () => Promise<Response>): Promise<Response>;
}

/** Error routing for the requests of one endpoint (see the module comment). */
export function requestErrors(sinks: RequestErrorSinks): RequestErrors {
  const held = new AsyncLocalStorage<{ errors: Error[]; open: boolean }>();
  return {
    report(error) {
      const request = held.getStore();
      if (request?.open) request.errors.push(error);
      else sinks.onError?.(error);
    },
    async around(answer) {
      const request = { errors: [] as Error[], open: true };
      let status = 500;
      try {
        const response = await held.run(request, answer);
        status = response.status;
        return response;
      } finally {
        request.open = false;
        const client = status >= 400 && status < 500;
        for (const error of request.errors) {
          if (client) sinks.onClientError?.(error, status);
          else sinks.onError?.(error);
        }
      }
    },
  };
}
