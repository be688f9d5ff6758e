import { main } from "./src/cli/entry.ts";

if (import.meta.main) Deno.exit(await main(Deno.args));
