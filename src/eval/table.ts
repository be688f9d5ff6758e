/**
 * The report as a person reads it: one row per fixture and model, a summary row per model, then
 * one line per comparison.
 */
import type { Aggregate, Comparison, FixtureResult, ModelSummary } from "./aggregate.ts";
import type { ToolErrorCounts } from "./observe.ts";
import type { EvalReport } from "./report.ts";
import { table } from "../util/text_table.ts";

const HEAD = [
  "FIXTURE",
  "MODEL",
  "PASSED",
  "RATE",
  "95% CI",
  "PASS^K",
  "F1",
  "REDUNDANT",
  "TOOL ERRORS",
  "TOKENS",
  "TIME",
  "OTHER OUTCOMES",
];

/** The report as a table with a summary row per model and the comparisons below it. */
export function renderTable(report: EvalReport): string {
  const rows: string[][] = [];
  for (const summary of report.models) {
    for (const result of report.fixtures.filter((f) => sameModel(f, summary))) {
      rows.push(row(result.id, result.model, result, passK(result)));
    }
    rows.push(
      row(
        `all (${summary.fixtures_passed}/${summary.fixtures} passed)`,
        summary.model,
        summary,
        "-",
      ),
    );
  }
  const lines = [formatColumns([HEAD, ...rows])];
  for (const c of report.comparisons) lines.push(comparisonLine(c));
  return lines.join("\n");
}

function sameModel(result: FixtureResult, summary: ModelSummary): boolean {
  return result.model === summary.model && result.provider === summary.provider;
}

function row(name: string, model: string, a: Aggregate, passK: string): string[] {
  return [
    name,
    model,
    `${a.passes}/${a.n}`,
    a.pass_rate.toFixed(2),
    `${a.wilson.low.toFixed(2)}-${a.wilson.high.toFixed(2)}`,
    passK,
    a.f1 === null ? "-" : a.f1.toFixed(2),
    String(a.redundant_calls),
    toolErrors(a.tool_errors),
    a.tokens ? String(a.tokens.total) : "n/a",
    a.wall_ms < 1000 ? `${Math.round(a.wall_ms)} ms` : `${(a.wall_ms / 1000).toFixed(1)} s`,
    otherOutcomes(a),
  ];
}

/** pass^k at k = n, written `pass^3 0.33` style only as the value. */
function passK(result: FixtureResult): string {
  const value = result.pass_k[String(result.n)];
  return value === undefined ? "-" : value.toFixed(2);
}

function toolErrors(counts: ToolErrorCounts): string {
  const words: Array<[keyof ToolErrorCounts, string]> = [
    ["unknown_tool", "unknown"],
    ["invalid_arguments", "invalid"],
    ["denied", "denied"],
    ["failed", "failed"],
  ];
  const parts = words.filter(([k]) => counts[k] > 0).map(([k, w]) => `${counts[k]} ${w}`);
  return parts.length ? parts.join(", ") : "-";
}

function otherOutcomes(a: Aggregate): string {
  const parts = (["fail", "engine_error", "timeout", "turn_limit"] as const)
    .filter((o) => a.outcomes[o] > 0)
    .map((o) => `${a.outcomes[o]} ${o}`);
  return parts.length ? parts.join(", ") : "-";
}

/** One comparison in words. */
export function comparisonLine(c: Comparison): string {
  const d = c.paired_difference;
  const signed = (v: number) => `${v >= 0 ? "+" : ""}${v.toFixed(2)}`;
  return `${c.a} vs ${c.b}: ${c.wins} wins, ${c.ties} ties, ${c.losses} losses; ` +
    `paired difference ${signed(d.estimate)} (95% CI ${signed(d.low)} to ${signed(d.high)}, ` +
    `n=${d.n}): ${c.verdict}`;
}

/** Left-aligned columns two spaces apart. */
export function formatColumns(rows: string[][]): string {
  return table(rows[0], rows.slice(1));
}

/** `svc eval list`: one row per fixture with where it came from and its expected trace. */
export function renderFixtureList(
  fixtures: ReadonlyArray<
    {
      fixture: { id: string; description?: string; prompt: string; expected?: string[] };
      origin: string;
      overrides: string[];
    }
  >,
): string {
  if (fixtures.length === 0) return "No fixtures found";
  const rows = fixtures.map(({ fixture, origin, overrides }) => [
    fixture.id,
    overrides.length ? `${origin} (overrides ${overrides.join(", ")})` : origin,
    fixture.expected ? fixture.expected.join(" > ") || "(none)" : "-",
    oneLine(fixture.description ?? fixture.prompt, 70),
  ]);
  return formatColumns([["ID", "ORIGIN", "EXPECTED", "DESCRIPTION"], ...rows]);
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}
