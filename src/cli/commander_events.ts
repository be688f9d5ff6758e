/**
 * The EventEmitter commander's Command class extends, in the bundle (scripts/bundle.ts points
 * commander's `node:events` import here). The `events` package is Node's EventEmitter as plain
 * JavaScript; Deno's `node:events` would load Deno's Node layer at every start (about 5 ms, see
 * docs/performance.md). The source tree (`deno task svc`) keeps commander's own import.
 */
export { EventEmitter } from "events";
