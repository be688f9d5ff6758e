import { Command, Option } from "commander";
import { resolveWorktree } from "../runtime/worktree.ts";
import { commaList, dollars, seconds, toolPermission, wholeNumber } from "./flags.ts";
import { UsageError } from "../shared/usage_error.ts";
import { exitCodeOf } from "./usage.ts";

/** Flags every subcommand sees (`--path` before the subcommand, `--json` anywhere). */
interface JobsFlags {
  path?: string;
  json?: boolean;
}

/** Flags of `svc jobs add` that are not parsed as given. */
interface AddFlags extends JobsFlags {
  every?: string;
  retries?: string;
  timeout?: string;
  toolsDeny?: string;
  toolPermission?: string;
  maxTurns?: string;
  maxTokensTotal?: string;
  maxCost?: string;
  jsonRetries?: string;
}

/** `--max-turns`, `--max-tokens-total` and `--max-cost` of `svc jobs add`: the runs' limits. */
function jobLimits(given: AddFlags): Record<string, number> | undefined {
  const limits: Record<string, number> = {};
  if (given.maxTurns !== undefined) {
    limits.max_turns = wholeNumber(given.maxTurns, { flag: "--max-turns", min: 1, max: 64 });
  }
  if (given.maxTokensTotal !== undefined) {
    limits.max_tokens_total = wholeNumber(given.maxTokensTotal, {
      flag: "--max-tokens-total",
      min: 1,
    });
  }
  if (given.maxCost !== undefined) limits.max_cost = dollars(given.maxCost, { flag: "--max-cost" });
  return Object.keys(limits).length ? limits : undefined;
}

/** Flags of `svc jobs run`. */
interface RunFlags {
  retry?: boolean;
  verbose?: boolean;
  output?: "text" | "json" | "stream-json";
  includePartialMessages?: boolean;
}

type Jobs = typeof import("../jobs/commands.ts") & typeof import("../jobs/run_commands.ts");

/** Wraps a jobs action: loads the job modules, reports a failure and sets the exit code. */
type Act = <A extends unknown[]>(
  fn: (jobs: Jobs, worktree: string, ...args: A) => Promise<number | void>,
) => (...args: A) => Promise<void>;

/**
 * `svc jobs`: scheduled, human-gated jobs (docs/jobs.md). `--path` goes before the subcommand;
 * every subcommand reads its flags together with the parent's (optsWithGlobals).
 */
export function jobsCommand(setExit: (code: number) => void): Command {
  const cmd = new Command("jobs")
    .description(
      "Scheduled, human-gated agent jobs of a worktree (.svc/jobs.json) and the daemon that runs them",
    )
    .option("--path <dir>", "worktree (default: the current directory)");
  const act: Act = (fn) => async (...args) => {
    try {
      const sub = args.at(-1) as Command;
      const worktree = resolveWorktree(flags(sub).path);
      const [commands, runs] = await Promise.all([
        import("../jobs/commands.ts"),
        import("../jobs/run_commands.ts"),
      ]);
      const code = await fn({ ...commands, ...runs }, worktree, ...args);
      if (typeof code === "number") setExit(code);
    } catch (err) {
      console.error(`svc jobs: ${(err as Error).message}`);
      setExit(exitCodeOf(err));
    }
  };
  addViewCommands(cmd, act);
  addAddCommand(cmd, act);
  addChangeCommands(cmd, act);
  addRunCommands(cmd, act);
  return cmd;
}

/** The flags of `sub` together with its parent's. */
function flags<T extends JobsFlags>(sub: Command): T {
  return sub.optsWithGlobals() as T;
}

/** `--json`. */
function json(c: Command): Command {
  return c.option("--json", "print JSON");
}

/** list, status and show. */
function addViewCommands(cmd: Command, act: Act): void {
  json(cmd.command("list").description("list the jobs: state, schedule, next run, approval"))
    .action(act((j, worktree, _o: unknown, sub: Command) => j.list(worktree, flags(sub))));
  json(
    cmd.command("status").description(
      "state, fired count (ok and failed), last error, next run, approval of each job; the daemon",
    ),
  ).action(act((j, worktree, _o: unknown, sub: Command) => j.status(worktree, flags(sub))));
  json(cmd.command("show").description("one job: definition, last output, memory path and preview"))
    .argument("<name>", "job name")
    .action(
      act((j, worktree, name: string, _o: unknown, sub: Command) =>
        j.show(worktree, name, flags(sub))
      ),
    );
}

/** add: a proposed job. */
function addAddCommand(cmd: Command, act: Act): void {
  json(cmd.command("add").description("add a job (proposed: nothing runs until approved)"))
    .argument("<name>", "job name: letters, digits, _ and -")
    .option("--prompt <text>", "the short per-run trigger message")
    .option("--file <path>", "task file (default .svc/jobs/<name>.md, created from a template)")
    .option("--cron <expr>", 'five-field cron in local time, e.g. "0 9 * * 1-5"')
    .option("--every <seconds>", "interval in seconds")
    .option("--at <datetime>", "one-shot ISO 8601 time (local unless it has Z or an offset)")
    .option("--retries <n>", "retries after a failed attempt, with exponential backoff", "0")
    .option("--timeout <seconds>", "limit of each attempt", "600")
    .addOption(new Option("--approval <mode>", "auto: approve now").choices(["auto"]))
    .option("--require-approval", "park in waiting_approval after every run until approved")
    .option("--approve-model", "approve a model named by the job's agent type")
    .option("--type <name>", "agent type whose prompt, model and permissions the job uses")
    .option("--system-prompt <text>", "system prompt added after the job task")
    .addOption(new Option("--mode <mode>", "plan or build").choices(["plan", "build"]))
    .option("--provider <id>", "provider of the job's runs")
    .option("--model <model>", "model of the job's runs")
    .option("--tools-deny <names>", "comma-separated tool names the job may not use")
    .option(
      "--tool-permission <rules>",
      'category=action pairs (edit=allow,bash=deny) or a JSON object ({"bash_allow": [...]})',
    )
    .option("--session <name>", "one stable session for every run (default: a new job_ session)")
    .option("--max-turns <n>", "end each run's turn (truncated) after n model rounds (1-64)")
    .option("--max-tokens-total <n>", "end each run's turn once prompt+completion tokens reach n")
    .option("--max-cost <usd>", "end each run's turn once its cost reaches this many US dollars")
    .option("--json-schema <schema>", "the answer must be JSON valid against it (JSON or @file)")
    .option("--json-retries <n>", "repair requests after an answer that does not validate")
    .action(act((j, worktree, name: string, _o: unknown, sub: Command) => {
      const given = flags<AddFlags>(sub);
      return j.add(worktree, name, {
        ...given,
        limits: jobLimits(given),
        every: given.every === undefined
          ? undefined
          : wholeNumber(given.every, { flag: "--every", min: 1 }),
        retries: given.retries === undefined
          ? undefined
          : wholeNumber(given.retries, { flag: "--retries", min: 0 }),
        timeout: given.timeout === undefined
          ? undefined
          : wholeNumber(given.timeout, { flag: "--timeout", min: 1 }),
        toolsDeny: given.toolsDeny === undefined ? undefined : commaList(given.toolsDeny),
        jsonRetries: given.jsonRetries === undefined
          ? undefined
          : wholeNumber(given.jsonRetries, { flag: "--json-retries", min: 0, max: 10 }),
        toolPermission: given.toolPermission === undefined
          ? undefined
          : toolPermission(given.toolPermission),
      });
    }));
}

/** edit, approve, reject, enable, disable (stop) and remove. */
function addChangeCommands(cmd: Command, act: Act): void {
  cmd.command("edit").description("open the job's task file in $VISUAL or $EDITOR")
    .argument("<name>", "job name")
    .action(act((j, worktree, name: string) => j.edit(worktree, name)));
  const simple = (
    name: string,
    what: "approve" | "reject" | "enable" | "disable" | "remove",
    text: string,
  ) =>
    json(cmd.command(name).description(text))
      .argument("<name>", "job name")
      .action(
        act((j, worktree, job: string, _o: unknown, sub: Command) =>
          j.change(worktree, { ...flags(sub), what, name: job })
        ),
      );
  simple(
    "approve",
    "approve",
    "approve the job as it is defined now (with --require-approval: one run)",
  );
  simple("reject", "reject", "clear your approval of the job");
  simple("enable", "enable", "re-arm a disabled job (next run strictly after now)");
  simple("disable", "disable", "stop firing the job until enabled");
  simple("stop", "disable", "alias of disable");
  simple("remove", "remove", "remove the job from the register (its files stay)");
}

/** run: once now; daemon: whenever due. */
function addRunCommands(cmd: Command, act: Act): void {
  json(
    cmd.command("run").description("run the job once now and print its final answer; exit 0 or 1"),
  )
    .argument("<name>", "job name")
    .option("--no-retry", "one attempt, whatever the job's retries")
    .option("--verbose", "tool calls, attempts and status lines on stderr")
    .addOption(
      new Option(
        "--output <format>",
        "text (the answer), json (the run report, as --json) or stream-json (one JSON object per line)",
      ).choices(["text", "json", "stream-json"]),
    )
    .option("--include-partial-messages", "with --output stream-json: text and thinking deltas")
    .action(act(async (j, worktree, name: string, _o: unknown, sub: Command) => {
      const given = flags<JobsFlags & RunFlags>(sub);
      const output = given.output ?? (given.json ? "json" : "text");
      if (given.json && output !== "json") {
        throw new UsageError(`--json and --output ${output} cannot be combined`);
      }
      if (given.includePartialMessages && output !== "stream-json") {
        throw new UsageError("--include-partial-messages needs --output stream-json");
      }
      const { renderTextEvent } = await import("./render_text.ts");
      const stream = output === "stream-json"
        ? new (await import("./stream_json.ts")).StreamJsonOutput(given)
        : undefined;
      return j.runNow(worktree, name, {
        ...given,
        json: output === "json",
        stream,
        onEvent: (event) => {
          stream?.event(event);
          if (given.verbose) renderTextEvent(event, { verbose: true, out: null });
        },
      });
    }));

  cmd.command("daemon").description(
    "fire due jobs until SIGINT or SIGTERM (one daemon per worktree)",
  )
    .option("--tick <seconds>", "longest sleep between looks at the register", "15")
    .option("--print-unit", "print a systemd user unit that runs this daemon, and exit")
    .action(act((j, worktree, _o: unknown, sub: Command) => {
      const given = flags<JobsFlags & { tick: string; printUnit?: boolean }>(sub);
      return j.daemon(worktree, {
        tickSeconds: seconds(given.tick, { flag: "--tick", max: 86400 }),
        printUnit: given.printUnit,
      });
    }));
}
