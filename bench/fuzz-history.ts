/**
 * The earlier campaigns of `npm run fuzz` (bench/fuzz-results.json, one run per line) as a table
 * for bench/RESULTS.md: what each found on which commit, so that a finding's fix can be traced.
 */
export interface RecordedRun {
  readonly date: string;
  readonly commit: string;
  readonly seed: number;
  readonly targets: readonly string[];
  readonly queries: number;
  /** Stopped by hand before its time or count (its figures are those of its last progress line). */
  readonly stoppedEarly?: boolean;
  readonly seconds: number;
  readonly queriesPerSecond: number;
  readonly findingsByClass: Record<string, number>;
  readonly distinctFindings: readonly { readonly target: string; readonly class: string }[];
}

/** A Markdown table of `runs` (oldest first), or '' when there is none. */
export function historyTable(runs: readonly RecordedRun[]): string {
  if (runs.length === 0) return '';
  const rows = runs.map((r) => {
    const disagreements = (r.findingsByClass['row disagreement'] ?? 0) + (r.findingsByClass['ODataError mismatch'] ?? 0);
    const targets = r.targets.filter((t) => t !== 'memory').length;
    return `| ${r.date.slice(0, 16).replace('T', ' ')} | ${r.commit} | ${r.seed} | ${targets} | ${r.queries.toLocaleString('en')}${r.stoppedEarly === true ? ' (stopped early)' : ''} | ${r.queriesPerSecond} | ${disagreements} | ${r.findingsByClass['non-ODataError'] ?? 0} | ${r.findingsByClass['database error'] ?? 0} | ${r.distinctFindings.length} |`;
  });
  return `## Earlier campaigns (bench/fuzz-results.json)

Each distinct finding of a run was fixed (or documented as a deviation) in the commits that follow it.

| date (UTC) | commit | seed | targets | queries | queries/s | disagreements | non-ODataErrors | database errors | distinct |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}
`;
}
