/**
 * `$compute` in the binder (URL 5.1.5, PROT 11.2.5.3): items bound and typed, aliases checked,
 * computed properties usable in `$filter`, `$orderby` and `$select` of the same level (and inside
 * `$expand`), references bound to the computed expression itself, and every error with its position.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, type BindSettings, type BoundQuery } from '../../src/index.js';
import { assetModel } from '../fixtures/asset-model.js';
import { failure } from '../helpers/failure.js';

const assets = { model: assetModel, entitySet: 'assets' } as const;
const bind = (query: string, settings: Partial<BindSettings> = {}): BoundQuery => bindQuery(query, { ...assets, ...settings });
const typeName = (type: BoundQuery['compute'] extends readonly (infer I)[] | undefined ? (I extends { type: infer T } ? T : never) : never): string =>
  type.kind === 'primitive' ? type.name : type.kind === 'enum' ? type.type.qualifiedName : type.kind;

describe('$compute binds each item against the type', () => {
  it('keeps names, types and spans of the items, in request order', () => {
    const bound = bind("$compute=weightKg mul 2 as double,concat(name,'!') as shout,installedOn as day,status as state,null as nothing");
    expect(bound.compute?.map((item) => [item.name, typeName(item.type)])).toEqual([
      ['double', 'Edm.Double'],
      ['shout', 'Edm.String'],
      ['day', 'Edm.Date'],
      ['state', 'AssetManagement.AssetStatus'],
      ['nothing', 'null'],
    ]);
    expect(bound.compute?.[1]?.span).toEqual({ start: 25, end: 50 });
    // No $select: every computed property is returned (PROT 11.2.5.3, SHOULD).
    expect(bound.select).toMatchObject({ all: true, computed: ['double', 'shout', 'day', 'state', 'nothing'] });
  });

  it('a query without $compute has no compute and no select.computed', () => {
    const bound = bind('$filter=weightKg gt 1');
    expect(bound.compute).toBeUndefined();
    expect(bound.select.computed).toBeUndefined();
  });

  it('$select returns the computed properties it names, or all of them with *', () => {
    expect(bind('$compute=weightKg mul 2 as a,weightKg mul 3 as b&$select=name,b').select).toMatchObject({ all: false, computed: ['b'] });
    expect(bind('$compute=weightKg mul 2 as a,weightKg mul 3 as b&$select=b,a,b').select.computed).toEqual(['a', 'b']);
    expect(bind('$compute=weightKg mul 2 as a&$select=name').select.computed).toEqual([]);
    expect(bind('$compute=weightKg mul 2 as a&$select=*').select).toMatchObject({ all: true, computed: ['a'] });
  });

  it('a reference in $filter or $orderby is the computed expression, with the span of the reference', () => {
    const bound = bind('$compute=weightKg mul 2 as heavy&$filter=heavy gt 10&$orderby=heavy desc');
    const filter = bound.filter;
    if (filter?.kind !== 'binary' || filter.left.kind !== 'binary') throw new Error('shape');
    expect(filter.left).toMatchObject({ operator: 'mul', span: { start: 0, end: 5 }, left: { kind: 'path', span: { start: 0, end: 5 } } });
    expect(bound.orderBy?.[0]?.expression).toMatchObject({ kind: 'binary', operator: 'mul', span: { start: 0, end: 5 } });
    expect(bind('$compute=weightKg mul 2 as heavy&$filter=$it/heavy gt 10').filter).toMatchObject({ left: { operator: 'mul' } });
  });

  it('inside a lambda the computed property is that of $it, not of the variable', () => {
    const bound = bind("$compute=concat(name,'x') as label&$filter=tickets/any(t:t/name eq label)");
    const lambda = bound.filter;
    if (lambda?.kind !== 'lambda' || lambda.predicate?.kind !== 'binary') throw new Error('shape');
    expect(lambda.predicate.right).toMatchObject({ kind: 'call', name: 'concat', args: [{ kind: 'path', root: { kind: 'it' } }, { kind: 'literal' }] });
  });

  it('works inside $expand, for the expanded level only', () => {
    const bound = bind("$expand=tickets($compute=concat(code,name) as label;$filter=label ne 'x';$orderby=label;$select=id,label)");
    const options = bound.expand[0]?.options;
    expect(options?.compute?.map((item) => item.name)).toEqual(['label']);
    expect(options?.select.computed).toEqual(['label']);
    expect(options?.filter).toMatchObject({ left: { kind: 'call', name: 'concat' } });
    const error = failure(() => bind('$expand=tickets($compute=length(code) as n)&$filter=n gt 1'));
    expect([error.code, error.option, error.position]).toEqual(['unknown_property', '$filter', 0]);
  });

  it('names are case-insensitive with caseInsensitive', () => {
    const bound = bind('$compute=weightKg mul 2 as Heavy&$filter=heavy gt 1&$select=HEAVY', { caseInsensitive: true });
    expect(bound.select.computed).toEqual(['Heavy']);
    expect(failure(() => bind('$compute=weightKg as Name', { caseInsensitive: true })).code).toBe('alias_conflict');
    expect(failure(() => bind('$compute=weightKg as a,name as A', { caseInsensitive: true })).code).toBe('alias_conflict');
    expect(bind('$compute=weightKg as a,name as A').compute?.length).toBe(2);
  });

  it('$compute counts against maxNodeCount like every expression, also where it is referenced', () => {
    expect(failure(() => bind('$compute=1 add 2 add 3 add 4 as x', { maxNodeCount: 5 })).code).toBe('node_count_exceeded');
    const inlined = failure(() => bind('$compute=1 add 2 add 3 as x&$filter=x add x add x gt 1', { maxNodeCount: 12 }));
    expect([inlined.code, inlined.option]).toEqual(['node_count_exceeded', '$filter']);
  });

  it('is refused where the settings do not allow it', () => {
    expect(failure(() => bind('$compute=1 as one', { allowedQueryOptions: ['filter'] })).code).toBe('not_allowed');
  });
});

describe('$compute errors carry their position', () => {
  const cases: [string, string, string, string, number][] = [
    ['$compute=weightKg as name', 'alias_conflict', "The $compute alias 'name' is the name of the property 'name' of type 'Asset'.", '$compute', 12],
    [
      '$compute=weightKg as tickets',
      'alias_conflict',
      "The $compute alias 'tickets' is the name of the navigation property 'tickets' of type 'Asset'.",
      '$compute',
      12,
    ],
    ['$compute=1 as x,2 as x', 'alias_conflict', "The $compute alias 'x' is used twice (first for 'x').", '$compute', 12],
    [
      '$compute=1 as \u00d7x',
      'syntax_error',
      "The $compute alias '\u00d7x' is not an OData identifier (a letter or '_', then letters, digits or '_').",
      '$compute',
      5,
    ],
    ['$compute=nope mul 2 as x', 'unknown_property', "Could not find a property named 'nope' on type 'Asset'.", '$compute', 0],
    ["$compute=name add 'a' as x", 'type_mismatch', '', '$compute', 0],
    [
      '$compute=x mul 2 as y,weightKg as x',
      'unsupported_feature',
      "A $compute expression cannot use the computed property 'x' of the same $compute.",
      '$compute',
      0,
    ],
    [
      '$compute=locality as x',
      'unsupported_feature',
      "A computed property of type 'AssetManagement.Locality' is not supported: only primitive and enumeration values are.",
      '$compute',
      0,
    ],
    [
      '$compute=tags as x',
      'unsupported_feature',
      "A computed property of type 'Collection(Edm.String)' is not supported: only primitive and enumeration values are.",
      '$compute',
      0,
    ],
    ['$compute=tenantId as t', 'not_selectable', "The property 'tenantId' cannot be used in the $compute query option.", '$compute', 0],
    [
      "$compute=concat(notes,'') as n&$orderby=n",
      'not_sortable',
      "In the computed property 'n': The property 'notes' cannot be used in the $orderby query option.",
      '$orderby',
      0,
    ],
    ['$compute=weightKg as w&$filter=w eq 1 and w/x eq 1', 'type_mismatch', "A path cannot continue after the computed property 'w'.", '$filter', 13],
    ['$compute=weightKg as w&$select=w/x', 'type_mismatch', "A $select path cannot continue after the computed property 'w'.", '$select', 2],
    [
      '$compute=weightKg as w&$filter=w',
      'type_mismatch',
      "The $filter expression must evaluate to a value of type 'Edm.Boolean', but is of type 'Edm.Double'.",
      '$filter',
      0,
    ],
    ['$compute=weightKg as w&$orderby=id,w/x', 'type_mismatch', "A path cannot continue after the computed property 'w'.", '$orderby', 5],
    ['$expand=tickets($compute=nope as x)', 'unknown_property', "Could not find a property named 'nope' on type 'MaintenanceTicket'.", '$expand', 17],
  ];
  for (const [input, code, message, option, position] of cases) {
    it(input, () => {
      const error = failure(() => bind(input));
      expect(error.code).toBe(code);
      expect(error.status).toBe(400);
      if (message !== '') expect(error.reason).toBe(message);
      expect(error.option).toBe(option);
      expect(error.position).toBe(position);
    });
  }
});
