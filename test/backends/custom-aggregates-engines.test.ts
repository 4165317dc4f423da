/**
 * Custom aggregates and custom aggregation methods (Data Aggregation 3.1.3, 6.2) on every engine
 * against the in-memory reference, over the fuzz model's rows with the model declaring custom
 * aggregates (`Aggregation.CustomAggregate` on its entity set) and the host defining them
 * (`BindSettings.customAggregates`, `customAggregationMethods`). A custom aggregate is bound to
 * standard aggregates, so every engine runs it; a custom method defined per backend runs where the
 * host defined it and is refused (`unsupported_feature`) elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, ODataError, type BindSettings, type CustomAggregationMethods, type EntitySet, type Model } from '../../src/index.js';
import { runDifferential, type DifferentialTarget } from '../../src/testing/index.js';
import { openTargets } from '../fixtures/differential-targets.js';
import { FUZZ_SET, fuzzModel, fuzzRows } from '../fixtures/fuzz-data.js';

/** The fuzz model with custom aggregates declared on its entity set (one named like a property). */
const items = fuzzModel.entitySets.get(FUZZ_SET) as EntitySet;
const declared: EntitySet = {
  ...items,
  csdl: {
    ...items.csdl,
    '@Org.OData.Aggregation.V1.CustomAggregate#Total': 'Edm.Int64',
    '@Org.OData.Aggregation.V1.CustomAggregate#Revenue': 'Edm.Decimal',
    '@Org.OData.Aggregation.V1.CustomAggregate#Items': 'Edm.Int64',
    '@Org.OData.Aggregation.V1.CustomAggregate#ChildTotal': 'Edm.Int64',
    '@Org.OData.Aggregation.V1.CustomAggregate#n16': 'Edm.Int16',
    '@Org.OData.Aggregation.V1.CustomAggregate#StatusAverage': 'Edm.Double',
    '@Org.OData.Aggregation.V1.CustomAggregate#Undefined': 'Edm.Decimal',
    '@Org.OData.Aggregation.V1.ApplySupported': { CustomAggregationMethods: ['Fz.concat', 'Fz.undefined'] },
  },
};
const model: Model = { ...fuzzModel, entitySets: new Map([...fuzzModel.entitySets, [FUZZ_SET, declared]]) };

/** Code-point order (the engines' binary collations). */
const byCodePoint = (a: string, b: string): number => {
  const x = [...a].map((c) => c.codePointAt(0) as number);
  const y = [...b].map((c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
};

const methods: CustomAggregationMethods = {
  // Portable: bound to standard aggregates.
  'Fz.sumOfSquares': { expression: '$this mul $this with sum' },
  // Per backend: the distinct values sorted by code point, joined with commas.
  'Fz.concat': {
    type: 'Edm.String',
    inputTypes: ['Edm.String'],
    memory: (values) => [...new Set(values as string[])].sort(byCodePoint).join(','),
    sql: {
      postgres: `string_agg(DISTINCT {value} COLLATE "C", ',' ORDER BY {value} COLLATE "C")`,
      duckdb: "string_agg(DISTINCT {value}, ',' ORDER BY {value})",
      mysql: "GROUP_CONCAT(DISTINCT {value} ORDER BY {value} SEPARATOR ',')",
      sqlite: 'group_concat(DISTINCT {value} ORDER BY {value})',
    },
    mongo: {
      $reduce: {
        input: { $sortArray: { input: { $setUnion: ['{values}', []] }, sortBy: 1 } },
        initialValue: null,
        in: { $cond: [{ $eq: ['$$value', null] }, '$$this', { $concat: ['$$value', ',', '$$this'] }] },
      },
    },
  },
  // Per backend, with a cast per dialect: the largest minus the smallest integer, as Int64.
  'Fz.range': {
    type: 'Edm.Int64',
    inputTypes: ['Edm.Int16', 'Edm.Int32', 'Edm.Int64'],
    memory: (values) => {
      const numbers = values.map((v) => BigInt(v as number | bigint));
      return numbers.reduce((a, b) => (b > a ? b : a)) - numbers.reduce((a, b) => (b < a ? b : a));
    },
    sql: {
      postgres: 'MAX(CAST({value} AS BIGINT)) - MIN(CAST({value} AS BIGINT))',
      duckdb: 'MAX(CAST({value} AS BIGINT)) - MIN(CAST({value} AS BIGINT))',
      mysql: 'MAX(CAST({value} AS SIGNED)) - MIN(CAST({value} AS SIGNED))',
      sqlite: 'MAX(CAST({value} AS INTEGER)) - MIN(CAST({value} AS INTEGER))',
    },
    // No MongoDB expression: refused there.
  },
};

const settings: Partial<BindSettings> = {
  customAggregates: {
    Total: 'n32 with sum',
    Revenue: 'dec mul 2 with sum',
    Items: '$count',
    ChildTotal: 'children/n32 with sum',
    n16: 'n16 with max',
    StatusAverage: 'n32 with sum from status with average',
  },
  customAggregationMethods: methods,
};

let opened: Awaited<ReturnType<typeof openTargets>> | undefined;
beforeAll(async () => {
  opened = await openTargets(model, FUZZ_SET, fuzzRows);
  if (opened.skipped.length > 0) {
    if (process.env.CI === 'true') throw new Error(`CI needs ODATA_TEST_POSTGRES_URL and ODATA_TEST_MYSQL_URL (missing: ${opened.skipped.join(', ')})`);
    console.warn(`[custom-aggregates-engines] skipped without a URL: ${opened.skipped.join(', ')}`);
  }
}, 60_000);
afterAll(async () => {
  await opened?.close();
});
const targets = (): DifferentialTarget[] => opened?.targets ?? [];

/** Every target agrees with the reference, or refuses with `unsupported_feature` where `refused` says it may. */
async function expectAgreement(query: string, refused: (target: string) => boolean = () => false): Promise<Record<string, unknown>[]> {
  const result = await runDifferential(query, { model, entitySet: FUZZ_SET, rows: fuzzRows, targets: targets(), settings });
  expect(result.reference.kind, result.reference.kind === 'odata' ? result.reference.message : '').toBe('rows');
  expect(result.findings.map((f) => `[${f.target}] ${f.class}: ${f.detail.slice(0, 300)}`)).toEqual([]);
  for (const [target, outcome] of result.outcomes) {
    if (refused(target)) expect(outcome.kind === 'odata' && outcome.code === 'unsupported_feature', `${target}: ${outcome.kind}`).toBe(true);
    else expect(outcome.kind, `${target}: ${outcome.kind === 'odata' ? outcome.message : outcome.kind}`).toBe('rows');
  }
  return result.reference.kind === 'rows' ? (result.reference.result.value as Record<string, unknown>[]) : [];
}

const mongo = (target: string): boolean => target.startsWith('MongoDB');
const mariadb = (target: string): boolean => target.startsWith('MariaDB');

describe('custom aggregates give the reference answer on every engine', () => {
  for (const query of [
    '$apply=aggregate(Total,Revenue,Items)',
    '$apply=groupby((status),aggregate(Total,n16,Items as N))',
    '$apply=groupby((flag),aggregate(Total as T,ChildTotal))',
    '$apply=aggregate(children/Total as CT,children/Items as CN)',
    '$apply=groupby((address/city),aggregate(parent/Total as PT))',
    '$apply=concat(groupby((status),aggregate(n16)),aggregate(n16))',
    '$apply=filter(n32 gt 0)/groupby((status),aggregate(Revenue))/orderby(Revenue desc)',
    '$filter=children/aggregate(Total) gt 0&$select=id',
  ]) {
    it(query, async () => void (await expectAgreement(query)), 60_000);
  }

  // `from`: MariaDB refuses it inside groupby().
  for (const query of [
    '$apply=aggregate(StatusAverage)',
    '$apply=aggregate(Total from status with max as M)',
    '$apply=groupby((flag),aggregate(StatusAverage,Total from status with min as M))',
    '$apply=groupby((status),aggregate(name with Fz.concat from flag with max as M))',
  ]) {
    it(query, async () => void (await expectAgreement(query, (t) => mariadb(t) && query.includes('groupby'))), 60_000);
  }

  it('a custom aggregate is its definition: the same rows as the standard aggregates it stands for', async () => {
    const custom = await expectAgreement('$apply=groupby((status),aggregate(Total,Items))');
    const standard = await expectAgreement('$apply=groupby((status),aggregate(n32 with sum as Total,$count as Items))');
    expect(custom).toEqual(standard);
  });
});

describe('custom aggregation methods on every engine', () => {
  for (const query of [
    '$apply=aggregate(n16 with Fz.sumOfSquares as S)',
    '$apply=groupby((status),aggregate(n16 with Fz.sumOfSquares as S,dbl with Fz.sumOfSquares as D))',
    '$apply=aggregate(name with Fz.concat as names)',
    '$apply=groupby((status),aggregate(name with Fz.concat as names,code with Fz.concat as codes))',
    '$apply=groupby((flag),aggregate(children/name with Fz.concat as names))',
    '$apply=filter(id gt 1000)/aggregate(name with Fz.concat as none)',
    '$compute=children/aggregate(name with Fz.concat) as names&$select=id,names',
  ]) {
    it(query, async () => void (await expectAgreement(query)), 60_000);
  }

  it('the portable method is its definition with the value in place of $this', async () => {
    const custom = await expectAgreement('$apply=groupby((status),aggregate(n16 with Fz.sumOfSquares as S))');
    const standard = await expectAgreement('$apply=groupby((status),aggregate(n16 mul n16 with sum as S))');
    expect(custom).toEqual(standard);
  });

  it('joins the distinct values sorted; null over no values, as on every backend', async () => {
    const [row] = await expectAgreement(
      "$apply=filter(name eq 'Alpha' or name eq 'ab' or name eq 'alpha' or name eq null)/aggregate(name with Fz.concat as names)",
    );
    expect(row).toEqual({ names: 'Alpha,ab,alpha' });
    const [none] = await expectAgreement('$apply=filter(id gt 1000)/aggregate(name with Fz.concat as names)');
    expect(none).toEqual({ names: null });
  });

  // Fz.range has no MongoDB expression.
  for (const query of [
    '$apply=groupby((status),aggregate(n32 with Fz.range as r,n16 with Fz.range as r16))',
    '$apply=aggregate(n32 with sum from status with Fz.range as r)',
  ]) {
    it(query, async () => void (await expectAgreement(query, (t) => mongo(t) || (mariadb(t) && query.includes('from') && query.includes('groupby')))), 60_000);
  }
});

describe('what the binder refuses', () => {
  const refusal = (query: string): ODataError => {
    try {
      bindQuery(query, { model, entitySet: FUZZ_SET, ...settings });
    } catch (error) {
      if (error instanceof ODataError) return error;
      throw error;
    }
    throw new Error(`bound: ${query}`);
  };
  const cases: [string, string, number, string][] = [
    [
      '$apply=aggregate(Undefined)',
      'not_implemented',
      501,
      "The custom aggregate 'Undefined' is declared by the model, but this service does not define how to compute it",
    ],
    ['$apply=aggregate(Nothing)', 'unknown_property', 400, "'Nothing' is no custom aggregate of 'items'"],
    ['$apply=aggregate(n32)', 'unknown_property', 400, "'n32' is a property of 'Item', not a custom aggregate: aggregate it with 'with' and a method"],
    ['$apply=aggregate(Total as n32)', 'invalid_option_value', 400, "The alias 'n32' is the name of a property of 'Item'"],
    [
      '$apply=groupby((status))/aggregate(Total)',
      'unknown_property',
      400,
      "'Total' is no custom aggregate of rows that are no longer entities; an aggregated property needs 'with' and a method",
    ],
    [
      '$apply=aggregate(n32 with Fz.undefined as x)',
      'not_implemented',
      501,
      "The custom aggregation method 'Fz.undefined' is declared by the model, but this service does not define it",
    ],
    ['$apply=aggregate(n32 with Fz.nothing as x)', 'unknown_function', 400, "'Fz.nothing' is no aggregation method of this service"],
    [
      '$apply=aggregate(n32 with Fz.concat as x)',
      'type_mismatch',
      400,
      "The custom aggregation method 'Fz.concat' aggregates values of type Edm.String, not 'Edm.Int32'",
    ],
  ];
  for (const [query, code, status, message] of cases) {
    it(query, () => {
      const error = refusal(query);
      expect([error.code, error.status, error.message]).toEqual([code, status, message]);
    });
  }

  it('a host definition that does not fit is a host error (500) naming it', () => {
    const bad = (definition: string, query = '$apply=aggregate(Total)'): ODataError => {
      try {
        bindQuery(query, { model, entitySet: FUZZ_SET, customAggregates: { Total: definition } });
      } catch (error) {
        if (error instanceof ODataError) return error;
        throw error;
      }
      throw new Error('bound');
    };
    expect(bad('n32 with max').message).toBe(
      "The definition 'n32 with max' of the custom aggregate 'Total' is invalid: it gives values of type 'Edm.Int32', the model declares 'Edm.Int64'",
    );
    expect(bad('n32 with').status).toBe(500);
    expect(bad('Items').message).toBe(
      "The definition 'Items' of the custom aggregate 'Total' is invalid: a definition may not use a custom aggregate or method",
    );
    expect(bad('nothing with sum').code).toBe('invalid_model');
  });

  it('defines custom aggregates per entity set with a function; a failing host function or reducer is a 500 ODataError', () => {
    const where: unknown[] = [];
    const customAggregates = (name: string, at: { entitySet: string | undefined; type: string }): string | undefined => {
      where.push([name, at.entitySet, at.type]);
      if (name === 'Items') throw new Error('no items here');
      return name === 'Total' ? 'n32 with sum' : undefined;
    };
    const bound = bindQuery('$apply=aggregate(Total)', { model, entitySet: FUZZ_SET, customAggregates });
    expect(where).toEqual([['Total', 'items', 'Fz.Item']]);
    expect(compileQuery(bound).apply(fuzzRows).value).toEqual(
      compileQuery(bindQuery('$apply=aggregate(n32 with sum as Total)', { model, entitySet: FUZZ_SET })).apply(fuzzRows).value,
    );
    expect(() => bindQuery('$apply=aggregate(Revenue)', { model, entitySet: FUZZ_SET, customAggregates })).toThrow(
      expect.objectContaining({ code: 'not_implemented', status: 501 }),
    );
    expect(() => bindQuery('$apply=aggregate(Items)', { model, entitySet: FUZZ_SET, customAggregates })).toThrow(
      expect.objectContaining({
        code: 'invalid_model',
        status: 500,
        message: "The service's definition of the custom aggregate 'Items' failed: no items here",
      }),
    );
    const failing = bindQuery('$apply=aggregate(name with Fz.fail as x)', {
      model,
      entitySet: FUZZ_SET,
      customAggregationMethods: {
        'Fz.fail': {
          type: 'Edm.String',
          memory: () => {
            throw new TypeError('broken');
          },
        },
      },
    });
    expect(() => compileQuery(failing).apply(fuzzRows)).toThrow(
      expect.objectContaining({ code: 'invalid_result', status: 500, message: "The service's custom aggregation method 'Fz.fail' failed: broken" }),
    );
  });

  it('custom aggregates inside $expand($apply=…) aggregate the related entities', () => {
    const bound = bindQuery('$filter=id le 3&$select=id&$expand=children($apply=aggregate(Total,Items))', { model, entitySet: FUZZ_SET, ...settings });
    const standard = bindQuery('$filter=id le 3&$select=id&$expand=children($apply=aggregate(n32 with sum as Total,$count as Items))', {
      model,
      entitySet: FUZZ_SET,
    });
    const data = { [FUZZ_SET]: fuzzRows };
    const value = compileQuery(bound, { data }).apply(fuzzRows).value;
    expect(value).toEqual(compileQuery(standard, { data }).apply(fuzzRows).value);
    expect(value.some((row) => (row.children as { Items: bigint }[])[0]?.Items !== 0n)).toBe(true);
  });
});
