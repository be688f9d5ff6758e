import assert from "node:assert/strict";
import { SVC_PERMISSIONS } from "../../src/launch/svc_command.ts";

/**
 * Runs a script that adopts the launcher's environment as svc's entry does, then prints what a
 * child process sees and how svc would start itself again.
 */
async function adopt(env: Record<string, string>) {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const script = `${dir}/main.ts`;
  const launcher = new URL("../../src/launch/launcher.ts", import.meta.url).href;
  const command = new URL("../../src/launch/svc_command.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { adoptLauncherEnv } from ${JSON.stringify(launcher)};
import { svcCommand } from ${JSON.stringify(command)};
adoptLauncherEnv();
const child = await new Deno.Command("sh", {
  args: ["-c", "env | grep -E '^(DENO_DIR|DENO_NO_UPDATE_CHECK|SVC_[A-Z_]+)=' | sort"],
}).output();
console.log(JSON.stringify({
  child: new TextDecoder().decode(child.stdout).split("\\n").filter(Boolean),
  again: svcCommand(["fleet", "up"]),
}));`,
  );
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...SVC_PERMISSIONS, "--quiet", script],
      env: { PATH: Deno.env.get("PATH") ?? "", HOME: dir, ...env },
      clearEnv: true,
      stderr: "inherit",
    }).output();
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("under the launcher, what svc runs gets the caller's DENO_DIR back and svc starts itself through the launcher", async () => {
  const seen = await adopt({
    SVC_LAUNCHER: "/opt/svc/bin/svc",
    DENO_DIR: "/opt/svc/lib/svc/.deno",
    DENO_NO_UPDATE_CHECK: "1",
    SVC_OUTER_DENO_DIR: "/home/me/.cache/deno",
  });
  assert.deepEqual(seen, {
    child: ["DENO_DIR=/home/me/.cache/deno"],
    again: { command: "/opt/svc/bin/svc", args: ["fleet", "up"] },
  });
});

Deno.test("under the launcher, a variable the caller had set empty stays set and one it had not set is removed", async () => {
  const seen = await adopt({
    SVC_LAUNCHER: "/opt/svc/bin/svc",
    DENO_DIR: "/opt/svc/lib/svc/.deno",
    DENO_NO_UPDATE_CHECK: "1",
    SVC_OUTER_DENO_NO_UPDATE_CHECK: "",
  });
  assert.deepEqual(seen.child, ["DENO_NO_UPDATE_CHECK="]);
});

Deno.test("without the launcher the environment is left as it is and svc starts itself with deno", async () => {
  const seen = await adopt({ DENO_DIR: "/home/me/.cache/deno", SVC_OUTER_DENO_DIR: "/elsewhere" });
  assert.deepEqual(seen.child, ["DENO_DIR=/home/me/.cache/deno", "SVC_OUTER_DENO_DIR=/elsewhere"]);
  assert.equal(seen.again.command, Deno.execPath());
});
