import { SVC_PERMISSIONS, SVC_V8_FLAGS } from "../../src/launch/svc_command.ts";

/** The image's ENTRYPOINT (deploy/Dockerfile): `svc serve` from source with svc's permission set. */
export const IMAGE_ENTRYPOINT: readonly string[] = [
  "deno",
  "run",
  ...SVC_PERMISSIONS,
  ...SVC_V8_FLAGS,
  "--quiet",
  "/opt/svc/main.ts",
  "serve",
];
