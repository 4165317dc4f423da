/**
 * The translating backends' preparation (src/backends/preparation.ts): one read-only survey picks
 * which of the four passes (known targets, dynamic uses, constant folding, fractional precision)
 * run. Whatever it skips, the result must be exactly that of running all four in order: the same
 * prepared query, or the same error. Checked on random typed and `$apply` queries over generated
 * models (open types, navigation, temporal literals) and on the cases each pass exists for.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bindQuery, modelFromCsdlXml, ODataError, type BoundQuery, type Model } from '../../src/index.js';
import { prepareForBackend, type BackendPreparation } from '../../src/backends/preparation.js';
import { requireKnownTargets } from '../../src/passes/known-targets.js';
import { refuseUntypedUses } from '../../src/passes/dynamic-uses.js';
import { limitFraction } from '../../src/passes/fractional-precision.js';
import { foldQuery } from '../../src/reference/constant-folding.js';
import { applyQueryArbitrary, generateModel, typedQueryArbitrary } from '../../src/testing/index.js';

const SQL: BackendPreparation = {
  backend: 'SQL',
  precision: { digits: { 'Edm.DateTimeOffset': 6, 'Edm.TimeOfDay': 6, 'Edm.Duration': 6 }, backend: 'SQL' },
};
const MONGO: BackendPreparation = { backend: 'MongoDB', precision: { digits: { 'Edm.DateTimeOffset': 3 }, backend: 'MongoDB' }, ordersGrouped: true };

/** The four passes, every one of them, in the order the backends ran them before the survey. */
function allPasses(query: BoundQuery, preparation: BackendPreparation): BoundQuery {
  requireKnownTargets(preparation.backend, query);
  refuseUntypedUses(query, preparation.backend, preparation.ordersGrouped ?? false);
  return limitFraction(foldQuery(query), preparation.precision);
}

/** The prepared query, or the error as a client sees it. */
function outcome(run: () => BoundQuery): { query: BoundQuery } | { error: unknown } {
  try {
    return { query: run() };
  } catch (error) {
    if (!(error instanceof ODataError)) throw error;
    return { error: { code: error.code, message: error.message, option: error.option, position: error.position } };
  }
}

/** Checks one query on both backends; which of the outcomes changed the query (for the test's own coverage). */
function check(query: BoundQuery, seen: Set<string>): void {
  for (const preparation of [SQL, MONGO]) {
    const expected = outcome(() => allPasses(query, preparation));
    const actual = outcome(() => prepareForBackend(query, preparation));
    expect(actual).toEqual(expected);
    if ('error' in expected) seen.add(`error ${preparation.backend}`);
    else seen.add(expected.query === query ? 'unchanged' : 'changed');
    // Nothing to do is nothing done: the query itself, no copy.
    if ('query' in expected && expected.query === query && 'query' in actual) expect(actual.query).toBe(query);
  }
}

function bound(text: string, model: Model, entitySet: string): BoundQuery | undefined {
  try {
    return bindQuery(text, { model, entitySet });
  } catch (error) {
    if (error instanceof ODataError) return undefined;
    throw error;
  }
}

describe('backend preparation', () => {
  // now() folds to the clock's instant: one instant for both runs of each query.
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-29T12:34:56.789Z'));
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it('is all four passes on random queries over generated models', () => {
    const seen = new Set<string>();
    for (const seed of [11, 12, 13, 14]) {
      const model = generateModel({ seed });
      for (const entitySet of [...model.entitySets.keys()]) {
        const texts = fc.sample(
          fc.oneof(
            typedQueryArbitrary(model, entitySet).map((q) => q.text),
            applyQueryArbitrary(model, entitySet).map((q) => q.text),
          ),
          { seed, numRuns: 40 },
        );
        for (const text of texts) {
          const query = bound(text, model, entitySet);
          if (query !== undefined) check(query, seen);
        }
      }
    }
    // The random queries reach both outcomes, unchanged (every pass skipped or idle) and changed.
    expect(seen).toContain('unchanged');
    expect(seen).toContain('changed');
  });

  const model = modelFromCsdlXml(`<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="P" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <EntityType Name="Item" OpenType="true">
      <Key><PropertyRef Name="Id"/></Key>
      <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
      <Property Name="Name" Type="Edm.String"/>
      <Property Name="At" Type="Edm.DateTimeOffset" Precision="7"/>
      <Property Name="Time" Type="Edm.TimeOfDay" Precision="7"/>
      <Property Name="Span" Type="Edm.Duration"/>
      <Property Name="Price" Type="Edm.Double"/>
      <NavigationProperty Name="Owner" Type="P.Owner"/>
      <NavigationProperty Name="Lost" Type="P.Ghost"/>
    </EntityType>
    <EntityType Name="Owner">
      <Key><PropertyRef Name="Id"/></Key>
      <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
      <Property Name="Name" Type="Edm.String"/>
    </EntityType>
    <EntityType Name="Ghost">
      <Key><PropertyRef Name="Id"/></Key>
      <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
      <Property Name="Name" Type="Edm.String"/>
    </EntityType>
    <EntityContainer Name="C">
      <EntitySet Name="Items" EntityType="P.Item"><NavigationPropertyBinding Path="Owner" Target="Owners"/></EntitySet>
      <EntitySet Name="Owners" EntityType="P.Owner"/>
    </EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`);

  it.each([
    // Nothing for any pass: the query itself.
    ["$filter=Name eq 'a' and Price gt 2.5&$orderby=Id desc", 'unchanged'],
    ["$filter=Owner/Name eq 'a'", 'unchanged'],
    // Constant folding: functions and operators over literals, now(), null, NaN, times of day, durations.
    ["$filter=Name eq concat('a','b')", 'changed'],
    ['$filter=Price gt 1 add 2', 'changed'],
    ['$filter=At lt now()', 'changed'],
    ['$filter=startswith(Name,null) or Id eq 1', 'changed'],
    ['$filter=Price in (1.5,NaN)', 'changed'],
    ['$filter=Time eq 12:00', 'changed'],
    ["$filter=At add duration'P1D' gt 2020-01-01T00:00:00Z", 'changed'],
    ['$compute=Price mul 2 as Twice&$select=Twice&$orderby=Twice', 'unchanged'],
    // Fractional precision: finer literals made exact, or refused.
    ['$filter=At eq 2020-01-01T00:00:00.0000001Z', 'changed'],
    ['$filter=At eq 2020-01-01T00:00:00.0001Z', 'changed'],
    ['$filter=Time eq 12:00:00.0000001', 'changed'],
    // A dynamic property: compared with null, ordered, selected; refused in arithmetic.
    ['$filter=Dyn eq null&$orderby=Dyn', 'unchanged'],
    ['$filter=Dyn add 1 eq 2', 'error'],
    // A navigation without an entity set: refused, even where folding would drop it.
    ["$filter=Lost/Name eq 'a'", 'error'],
    ['$filter=(null mul 0) add Lost/Id eq 1', 'error'],
  ])('%s', (text, kind) => {
    const query = bindQuery(text, { model, entitySet: 'Items' });
    const seen = new Set<string>();
    check(query, seen);
    expect([...seen].some((s) => s.startsWith(kind))).toBe(true);
  });
});
