/**
 * The Deno permissions svc's entry points run with; the list lives beside the helper that starts
 * svc again (src/launch/svc_command.ts), so a svc started by svc gets the same set.
 */
export { SVC_PERMISSIONS } from "../src/launch/svc_command.ts";
