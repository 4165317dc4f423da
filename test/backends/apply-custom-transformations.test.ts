/**
 * Custom transformations of `$apply` (Data Aggregation 4.0, 7.7; `BindSettings.customTransformations`):
 * a service-defined function bound to the current collection. In memory the host's function runs
 * over the rows and the arguments (named, literals of the declared types); what it throws or
 * gives in another form is a 500; SQL and MongoDB refuse it. Example 104 of the text runs in
 * test/conformance/aggregation-examples.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, defineModel, ODataError, toMongo, toSql, type BindSettings, type Row } from '../../src/index.js';

const model = defineModel({
  namespace: 'Shop',
  entityTypes: {
    Sale: {
      key: ['id'],
      properties: { id: 'Edm.Int32', amount: { type: 'Edm.Decimal', nullable: true }, region: { type: 'Edm.String', nullable: true } },
    },
  },
  entitySets: { sales: { type: 'Sale' } },
});
const sales: Row[] = [
  { id: 1, amount: '10.50', region: 'north' },
  { id: 2, amount: '4', region: 'south' },
  { id: 3, amount: '1.25', region: 'north' },
  { id: 4, amount: null, region: null },
  { id: 5, amount: '2', region: 'north' },
];

const seen: unknown[] = [];
const settings: Pick<BindSettings, 'customTransformations'> = {
  customTransformations: {
    // The `Count` rows of the highest `Property`, then one row of the rest's sum of it.
    'Self.TopCountAndRemainder': {
      parameters: { Count: 'Edm.Int32', Property: 'Edm.String' },
      memory: (rows, args) => {
        seen.push(args);
        const [count, property] = [args['Count'] as number, args['Property'] as string];
        const sorted = [...rows].sort((a, b) => Number(b[property] ?? -Infinity) - Number(a[property] ?? -Infinity));
        const rest = sorted.slice(count);
        const remainder = rest.reduce((sum, row) => sum + Number(row[property] ?? 0), 0);
        return [...sorted.slice(0, count), ...(rest.length === 0 ? [] : [{ [property]: String(remainder), extra: 'dropped' }])];
      },
    },
    'Self.Scale': {
      parameters: { Factor: 'Edm.Decimal', Big: 'Edm.Int64', Ratio: 'Edm.Double' },
      memory: (rows, args) => {
        seen.push(args);
        return rows;
      },
    },
    'Self.Throws': {
      memory: () => {
        throw new Error('the host failed');
      },
    },
    'Self.NoArray': { memory: () => 42 as never },
    'Self.BadRow': { memory: () => [1] as never },
    'Self.SqlOnly': {},
  },
};

const bind = (query: string) => bindQuery(query, { model, entitySet: 'sales', ...settings });
const run = (query: string): Row[] => compileQuery(bind(query), { data: { sales } }).apply(sales).value;
function refusal(query: string, act: () => unknown = () => bind(query)): string {
  try {
    act();
  } catch (error) {
    if (error instanceof ODataError) return `${error.code}@${String(error.position)} ${error.status}`;
    throw error;
  }
  return 'accepted';
}

describe('custom transformations of $apply', () => {
  it("run the host's function in memory, alone or in a groupby per group, keeping the output type's properties", () => {
    expect(run("$apply=Self.TopCountAndRemainder(Count=2,Property='amount')")).toEqual([
      { id: 1, amount: '10.50', region: 'north' },
      { id: 2, amount: '4', region: 'south' },
      { amount: '3.25' },
    ]);
    // Each group's rows keep their other properties (3.2.3.1); the remainder row has the group's region.
    expect(run("$apply=groupby((region),Self.TopCountAndRemainder(Count=1,Property='amount'))&$orderby=region,amount desc")).toEqual([
      { region: null, id: 4, amount: null },
      { region: 'north', id: 1, amount: '10.50' },
      { region: 'north', amount: '3.25' },
      { region: 'south', id: 2, amount: '4' },
    ]);
    // Transformations after it read its rows.
    expect(run("$apply=Self.TopCountAndRemainder(Count=1,Property='amount')/aggregate($count as n)")).toEqual([{ n: 2n }]);
  });

  it('take literals of the declared types and parameter aliases, in storage form', () => {
    seen.length = 0;
    run('$apply=Self.Scale(Factor=2,Big=@b,Ratio=1)&@b=9007199254740993');
    expect(seen).toEqual([{ Factor: '2', Big: 9007199254740993n, Ratio: 1 }]);
  });

  it('refuse what the service does not define, and arguments that do not fit, with positions', () => {
    expect(refusal('$apply=Self.Unknown(Count=1)')).toBe('unsupported_feature@0 400');
    expect(refusal('$apply=filter(id gt 1)/Self.Unknown()')).toBe('unsupported_feature@16 400');
    expect(refusal("$apply=Self.TopCountAndRemainder(Count=1,Property='amount',Other=2)")).toBe('invalid_option_value@58 400');
    expect(refusal('$apply=Self.TopCountAndRemainder(Count=1)')).toBe('invalid_option_value@0 400');
    expect(refusal("$apply=Self.TopCountAndRemainder(Count='x',Property='amount')")).toBe('type_mismatch@32 400');
    expect(refusal("$apply=Self.TopCountAndRemainder(Count=3000000000,Property='amount')")).toBe('type_mismatch@32 400');
    expect(refusal("$apply=Self.TopCountAndRemainder(Count=id,Property='amount')")).toBe('invalid_option_value@32 400');
    expect(refusal("$apply=Self.TopCountAndRemainder(1,'amount')")).toBe('invalid_option_value@26 400');
    expect(refusal("$apply=Self.TopCountAndRemainder(Count=1,Count=2,Property='amount')")).toBe('invalid_option_value@34 400');
    expect(refusal('$apply=Self.Scale(Factor=1.5,Big=1.5,Ratio=1)')).toBe('type_mismatch@26 400');
  });

  it("make the host's failures service errors (500), never another exception", () => {
    for (const name of ['Throws', 'NoArray', 'BadRow']) {
      const query = `$apply=Self.${name}()`;
      expect(
        refusal(query, () => run(query)),
        name,
      ).toBe('invalid_result@undefined 500');
    }
    expect(refusal('$apply=Self.SqlOnly()', () => run('$apply=Self.SqlOnly()'))).toBe('unsupported_feature@0 400');
  });

  it('are refused by SQL and MongoDB, which have no definition of them', () => {
    const query = "$apply=Self.TopCountAndRemainder(Count=1,Property='amount')";
    for (const dialect of ['postgres', 'sqlite', 'mysql', 'duckdb', 'mssql'] as const)
      expect(
        refusal(query, () => toSql(bind(query), { dialect })),
        dialect,
      ).toBe('unsupported_feature@0 400');
    expect(refusal(query, () => toMongo(bind(query)))).toBe('unsupported_feature@0 400');
  });
});
