import { Command } from "commander";
import type { CatalogFlags, CatalogKind } from "./catalog_action.ts";

const WHAT: Record<CatalogKind, { one: string; many: string }> = {
  types: { one: "agent type", many: "agent types" },
  skills: { one: "skill", many: "skills" },
  teams: { one: "team", many: "teams" },
};

/**
 * `svc types`, `svc skills`, `svc teams`: read-only views of the catalogs, `list` (also the
 * command alone) and `show <name>`, each naming the layer an entry comes from.
 */
export function catalogCommand(kind: CatalogKind, setExit: (code: number) => void): Command {
  const { one, many } = WHAT[kind];
  // Commander gives `--json` and `--path` to the parent command even after a subcommand's name,
  // so the subcommands read their flags with the parent's (optsWithGlobals).
  const run = (name?: string) => async (flags: CatalogFlags) => {
    try {
      const actions = await import("./catalog_action.ts");
      await (name === undefined ? actions.list(kind, flags) : actions.show(kind, name, flags));
    } catch (err) {
      console.error(`svc ${kind}: ${(err as Error).message}`);
      setExit(1);
    }
  };
  const flagged = (c: Command) =>
    c.option("--json", "print JSON")
      .option("--path <dir>", "worktree (default: the current directory)");
  const cmd = flagged(
    new Command(kind).description(
      `List or show ${many} (bundled < plugin < global ~/.config/svc < local .svc); the command ` +
        "alone lists them",
    ),
  ).action((flags: CatalogFlags) => run()(flags));
  flagged(cmd.command("list").description(`list the ${many} and the layer each comes from`))
    .action((_flags: CatalogFlags, sub: Command) => run()(sub.optsWithGlobals()));
  flagged(cmd.command("show").description(`show one ${one} in full`))
    .argument("<name>", `the ${one}'s name`)
    .action((name: string, _flags: CatalogFlags, sub: Command) => run(name)(sub.optsWithGlobals()));
  return cmd;
}
