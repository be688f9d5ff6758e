/** The HTTP API of `svc serve`: a `(Request) => Promise<Response>` handler; no socket in here. */
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
export { Mutex, QueueFullError } from "./lock.ts";
export { closeEndpoints, mountServices } from "./services.ts";
export {
  bearerChecker,
  defaultTokenPath,
  loadOrCreateToken,
  MIN_TOKEN_LENGTH,
  readTokenFile,
} from "./token.ts";
