/**
 * `$expand` with options of a collection `$apply` made (`addnested`, `nest`, a `groupby` ending in
 * `nest`): the options apply to its items as a `$select` item's options do (`$filter`, `$orderby`,
 * `$top`, `$skip`, `$select`, `$compute`), on every engine against the in-memory reference.
 * (Before, memory wrote such a collection as one object, which the handler answered with 500.)
 */
import { describe, expect, it } from 'vitest';
import { runDifferential } from '../../src/testing/differential.js';
import { expectAgreement, useFuzzTargets } from '../fixtures/fuzz-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';
import { createODataHandler, memorySource } from '../../src/server/index.js';

const targets = useFuzzTargets('apply-made-collections-engines');

const CASES: readonly string[] = [
  '$apply=addnested(children,filter(flag eq true) as kids)&$expand=kids($select=id)&$select=id&$orderby=id',
  '$apply=addnested(children,filter(flag eq true) as kids)&$select=id,kids($select=id,name)&$orderby=id',
  '$apply=addnested(children,identity as kids)&$expand=kids($filter=n32 gt 0;$orderby=id desc;$top=1;$select=id,name)&$orderby=id',
  '$apply=addnested(children,compute(n32 add 1 as m) as kids)&$expand=kids($orderby=m;$skip=1;$select=m)&$select=id&$orderby=id',
  '$apply=nest(filter(flag eq true) as kids)&$expand=kids($select=id,name)',
  '$apply=nest(filter(flag eq true) as kids,groupby((status),aggregate($count as n)) as byStatus)&$expand=kids($select=id;$orderby=id;$top=2),byStatus($filter=n gt 1)',
  '$apply=groupby((flag),nest(groupby((status)) as statuses))&$expand=statuses($select=status;$filter=status ne null)',
];

describe('$expand with options of a collection $apply made', () => {
  for (const query of CASES) it(query, async () => expectAgreement(query, targets()), 60_000);

  it('$expand and $apply inside it are refused with a 400 naming the collection', async () => {
    const result = await runDifferential('$apply=addnested(children,identity as kids)&$expand=kids($expand=parent)', {
      model: fuzzModel,
      entitySet: FUZZ_SET,
      rows: fuzzRows,
      targets: [],
    });
    expect(result.reference.kind === 'odata' && result.reference.code).toBe('unsupported_feature');
    expect(result.reference.kind === 'odata' && result.reference.message).toMatch(/\$expand in \$expand of 'kids', a collection \$apply made/);
  });

  it('the handler answers with the items narrowed, not 500', async () => {
    const handler = createODataHandler({ model: fuzzModel, source: memorySource({ [FUZZ_SET]: fuzzRows }) });
    const response = await handler(new Request(`http://localhost/${FUZZ_SET}?$apply=nest(filter(flag%20eq%20true)%20as%20kids)&$expand=kids($select=id)`));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { value: { kids: { id: number }[] }[] };
    const ids = fuzzRows.filter((row) => row.flag === true).map((row) => Number(row.id));
    expect(body.value).toHaveLength(1);
    expect(body.value[0]?.kids.map((kid) => Object.keys(kid))).toEqual(ids.map(() => ['id']));
    expect(body.value[0]?.kids.map((kid) => Number(kid.id)).sort((a, b) => a - b)).toEqual(ids.sort((a, b) => a - b));
  });
});
