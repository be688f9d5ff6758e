/**
 * The eval report: provenance (what exactly was measured, hashed), the aggregated results, and
 * where it is written: `<dir>/report.json` with one transcript per trial under
 * `<dir>/transcripts/<n>-<model>/<fixture>/trial-<k>.json`.
 */
import { createHash } from "node:crypto";
import { join } from "../util/posix_path.ts";
import type { Config } from "../config/schema.ts";
import { composeSystemMessages, Runtime } from "../runtime/mod.ts";
import { offeredTools } from "../tool/judge.ts";
import { prepareSchemas } from "../tool/registry.ts";
import { VERSION } from "../version.ts";
import type { Comparison, FixtureResult, ModelSummary } from "./aggregate.ts";
import type { Fixture } from "./fixture.ts";
import { canonicalJson } from "./observe.ts";
import type { EvalResults } from "./run.ts";
import type { EvalSetup, TrialLimits, TrialRun } from "./trial.ts";

/** Bumped when a field of the report changes meaning or is removed. */
export const REPORT_SCHEMA_VERSION = 1;

/** One model as measured: its backend and how it was asked. */
export interface ModelProvenance {
  model: string;
  provider: string;
  base_url: string;
  reasoning: Config["reasoning"];
  temperature: number | null;
  max_tokens: number;
}

/** What a report's numbers were measured with; the hashes are SHA-256, hex. */
export interface Provenance {
  svc_version: string;
  models: ModelProvenance[];
  /** The system prompt, with the trial worktree's path written as `{worktree}`. */
  system_prompt_sha256: string;
  /** The tool schemas offered under the eval defaults (canonical JSON), and their names. */
  tool_schemas_sha256: string;
  tools: string[];
  /** Every fixture run (canonical JSON, sorted by id), and each one. */
  fixtures_sha256: string;
  fixture_sha256: Record<string, string>;
  tool_permission: Config["tool_permission"];
  repeats: number;
  max_rounds: number;
  timeout_s: number;
}

/** The whole report, as `--output json` prints it and `report.json` holds it. */
export interface EvalReport {
  schema_version: number;
  svc_version: string;
  created_at: string;
  /** Where report.json and the transcripts are. */
  report_dir: string;
  /** Every fixture passed (every trial) for every model. */
  passed: boolean;
  provenance: Provenance;
  models: ModelSummary[];
  /** One entry per fixture and model. */
  fixtures: FixtureResult[];
  comparisons: Comparison[];
}

/** SHA-256 of text, hex. */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The provenance of a run of `fixtures` with `setup` against `models`. */
export async function provenance(
  setup: EvalSetup,
  { fixtures, models, ...settings }: {
    fixtures: readonly Fixture[];
    models: readonly ModelProvenance[];
    repeats: number;
    limits: TrialLimits;
  },
): Promise<Provenance> {
  const config = setup.config;
  const system = await composeSystemMessages(
    { ...config, project_instructions: "" },
    "{worktree}",
  );
  // The same registry a trial builds (the plugins' tools plus ask and delegate), offered under
  // the eval defaults; no worktree is touched.
  const registry = new Runtime({ worktree: "/", config, tools: setup.tools }).registry;
  const offered = offeredTools(registry, { config, worktree: "/" });
  const sorted = [...fixtures].sort((a, b) => (a.id < b.id ? -1 : 1));
  await prepareSchemas(offered);
  return {
    svc_version: VERSION,
    models: [...models],
    system_prompt_sha256: sha256(system.join("\n\n")),
    tool_schemas_sha256: sha256(canonicalJson(offered.map((t) => registry.schemaOf(t)))),
    tools: offered.map((t) => t.name),
    fixtures_sha256: sha256(canonicalJson(sorted)),
    fixture_sha256: Object.fromEntries(sorted.map((f) => [f.id, sha256(canonicalJson(f))])),
    tool_permission: config.tool_permission,
    repeats: settings.repeats,
    max_rounds: settings.limits.maxRounds,
    timeout_s: settings.limits.timeoutMs / 1000,
  };
}

/** How a model config is recorded. */
export function modelProvenance(
  config: Config,
  connection: { model: string; provider: string; baseUrl: string },
): ModelProvenance {
  return {
    model: connection.model,
    provider: connection.provider,
    base_url: connection.baseUrl,
    reasoning: config.reasoning,
    temperature: config.temperature ?? null,
    max_tokens: config.max_tokens,
  };
}

/** The report of finished results. */
export function buildReport(
  results: EvalResults,
  { provenance, dir }: { provenance: Provenance; dir: string },
): EvalReport {
  const fixtures = results.models.flatMap((m) => m.results);
  return {
    schema_version: REPORT_SCHEMA_VERSION,
    svc_version: VERSION,
    created_at: new Date().toISOString(),
    report_dir: dir,
    passed: fixtures.length > 0 && fixtures.every((f) => f.passed),
    provenance,
    models: results.models.map((m) => m.summary),
    fixtures,
    comparisons: results.comparisons,
  };
}

/** A folder name for the target at `index` (1-based in the name) and its model. */
export function modelFolder(index: number, model: string): string {
  const slug = model.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "").slice(0, 60);
  return `${index + 1}-${slug || "model"}`;
}

/** Writes one trial's transcript; returns its path relative to `dir`. */
export async function writeTranscript(
  dir: string,
  { folder, run }: { folder: string; run: TrialRun },
): Promise<string> {
  const relative = join(
    "transcripts",
    folder,
    run.transcript.fixture,
    `trial-${run.record.trial}.json`,
  );
  const path = join(dir, relative);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, `${JSON.stringify(run.transcript, null, 2)}\n`);
  return relative;
}

/** Writes `<dir>/report.json`; returns its path. */
export async function writeReport(dir: string, report: EvalReport): Promise<string> {
  const path = join(dir, "report.json");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}
