/**
 * The HTTP API of `svc serve`: a `(Request) => Promise<Response>` handler, and `listen`, which
 * serves it on a socket through node:http with connection limits.
 */
export { createServeApp, MAX_WAITING, type ServeApp, type ServeAppOptions } from "./app.ts";
export {
  BODY_TIMEOUT_MS,
  createHandler,
  type HandlerOptions,
  type HttpApp,
  MAX_CHAT_BYTES,
  MAX_ENDPOINT_BYTES,
  OPEN_PATHS,
} from "./handler.ts";
export { handleChat, parseChat, statusFor } from "./chat.ts";
export { isLoopback, loopbackHosts } from "./guard.ts";
export {
  type ConnectionLimits,
  defaultLimits,
  defaultMaxConnections,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  listen,
  type Listener,
  LISTENER_CHECK_MS,
  REQUEST_TIMEOUT_MS,
} from "./listen.ts";
export { Mutex, QueueFullError } from "./lock.ts";
export type { JobChange, JobRunStart, JobsApi } from "./route_module.ts";
export { closeEndpoints, mountServices } from "./services.ts";
export {
  bearerChecker,
  defaultTokenPath,
  loadOrCreateToken,
  MIN_TOKEN_LENGTH,
  readTokenFile,
} from "./token.ts";
