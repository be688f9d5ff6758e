/**
 * The V8 flags svc's entry points run with; the list lives beside the helper that starts svc again
 * (src/launch/svc_command.ts), so a svc started by svc (fleet agents) gets them too.
 */
export { SVC_V8_FLAGS } from "../src/launch/svc_command.ts";
