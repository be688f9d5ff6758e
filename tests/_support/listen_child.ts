/**
 * A process serving `GET /` with `listen` (the socket side of `svc serve`), for tests that run it
 * under a small `ulimit -n`. Argument: the connection cap. Prints the port on stdout, each error
 * `listen` reports on stderr, and stops on SIGTERM.
 */
import { listen } from "../../src/http/mod.ts";

const server = await listen(() => Promise.resolve(new Response("ok")), {
  hostname: "127.0.0.1",
  port: 0,
  limits: { maxConnections: Number(Deno.args[0]) },
  onError: (error) => console.error(`error: ${error.message}`),
});
console.log(server.port);
Deno.addSignalListener("SIGTERM", () => void server.shutdown().then(() => Deno.exit(0)));
