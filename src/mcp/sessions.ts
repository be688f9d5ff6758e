import {
  InMemoryServerEventBus,
  type McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
  type ServerEventBus,
} from "@modelcontextprotocol/server";
import type { ServiceSessions } from "../plugin/api.ts";

/** URI template of session resources. */
export const SESSION_URI = "svc://session/{name}";

/** Largest number of names one completion answers (the protocol's limit is 100). */
const MAX_COMPLETIONS = 100;

/** The URI of session `name`. */
export function sessionUri(name: string): string {
  return `svc://session/${name}`;
}

/**
 * How an instance delivers `notifications/resources/updated`: `watch` (a stdio connection, which
 * lives as long as its instance) watches the sessions folder itself; `none` (HTTP, one instance
 * per request) leaves delivery to the endpoint's `subscriptions/listen` streams.
 */
export type SessionUpdates = "watch" | "none";

/**
 * Every saved session as the read-only resource `svc://session/<name>` (JSON), with completion of
 * the `name` variable from the saved names. In the 2025 revisions `resources/subscribe` and
 * `resources/unsubscribe` keep the instance's set of subscribed URIs (any URI is accepted; only
 * session URIs ever change); with `updates: "watch"` a change to a subscribed session's file is
 * sent as `notifications/resources/updated`. In 2026-07-28 the serving entry filters the updates
 * by each `subscriptions/listen` stream's filter, so every change is sent.
 */
export function registerSessions(
  server: McpServer,
  sessions: ServiceSessions,
  { era, updates }: { era: "legacy" | "modern"; updates: SessionUpdates },
): void {
  const list = async () => ({
    resources: (await sessions.list()).map((name) => ({
      uri: sessionUri(name),
      name,
      mimeType: "application/json",
    })),
  });
  const complete = {
    name: async (value: string) =>
      (await sessions.list()).filter((n) => n.startsWith(value ?? "")).slice(0, MAX_COMPLETIONS),
  };
  server.registerResource(
    "session",
    new ResourceTemplate(SESSION_URI, { list, complete }),
    { mimeType: "application/json", description: "A saved svc session log (read-only)" },
    async (uri, variables) => {
      const name = String(variables.name ?? "");
      // Only names enumerated from the sessions folder are read: nothing else reaches the disk.
      if (!(await sessions.list()).includes(name)) throw new ResourceNotFoundError(uri.href);
      const data = await sessions.read(name);
      return {
        contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(data) }],
      };
    },
  );
  const subscribed = new Set<string>();
  if (era === "legacy") {
    server.server.setRequestHandler("resources/subscribe", (request) => {
      subscribed.add(request.params.uri);
      return {};
    });
    server.server.setRequestHandler("resources/unsubscribe", (request) => {
      subscribed.delete(request.params.uri);
      return {};
    });
  }
  if (updates !== "watch" || !sessions.watch) return;
  const stop = sessions.watch((name) => {
    const uri = sessionUri(name);
    if (era === "legacy" && !subscribed.has(uri)) return;
    server.server.sendResourceUpdated({ uri }).catch(() => {});
  });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    stop();
    previous?.();
  };
}

/**
 * The change-event bus of an HTTP endpoint's `subscriptions/listen` streams (2026-07-28): one
 * watcher of the sessions folder, started on first use, publishes every session change as
 * `notifications/resources/updated`; the SDK delivers it to the streams whose filter asks for it.
 */
export function sessionUpdateBus(
  sessions: ServiceSessions,
  onError?: (error: Error) => void,
): { bus: () => ServerEventBus; stop(): void } {
  let bus: InMemoryServerEventBus | undefined;
  let stop: (() => void) | undefined;
  return {
    bus() {
      if (bus) return bus;
      const created = bus = new InMemoryServerEventBus(onError);
      stop = sessions.watch?.((name) =>
        created.publish({ kind: "resource_updated", uri: sessionUri(name) })
      );
      return created;
    },
    stop: () => stop?.(),
  };
}
