/** The installed svc version; scripts/check_imports.ts keeps it equal to deno.json's. */
export const VERSION = "0.27.0";
