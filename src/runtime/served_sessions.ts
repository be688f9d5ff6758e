import type { ServiceSessions } from "../plugin/api.ts";
import { checkSessionName } from "../session/naming.ts";
import type { SessionStore } from "../session/store.ts";
import { watchSessions } from "./session_watch.ts";

/** Read-only access to the saved sessions of a store; nothing here can write a session. */
export function sessionReader(store: SessionStore): ServiceSessions {
  return {
    list: () => store.list(),
    async read(name) {
      const problem = checkSessionName(name);
      if (problem) throw new Error(`Invalid session name: ${problem}`);
      return await store.read(name);
    },
    watch: (onChange) => watchSessions(store.dir, onChange),
  };
}
