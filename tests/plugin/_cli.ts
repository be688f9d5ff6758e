/** Test entry for `svc plugins`: argv in, exit code out; SVC_TEST_BUNDLED_DIR overrides the root. */
import { pluginsCommand } from "../../src/cli/plugins_cmd.ts";

const bundledDir = Deno.env.get("SVC_TEST_BUNDLED_DIR") || undefined;
const setExit = (code: number) => {
  Deno.exitCode = code;
};
await pluginsCommand({ bundledDir, setExit }).parseAsync(Deno.args, { from: "user" });
