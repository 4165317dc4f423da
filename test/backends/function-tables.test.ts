/**
 * The function registry and the backends' tables: every table names every canonical function of
 * the registry (and the registry every function the parser reads, and every one of the spec), and
 * each backend runs a call exactly where its table says so; where it refuses, the query gets the
 * `unsupported_feature` error it got before the tables (messages and positions unchanged).
 */
import { describe, expect, it } from 'vitest';
import { FUNCTION_TARGETS } from '../../grammar/capabilities.js';
import { DIALECTS, compileQuery, defineModel, mongoTarget, sqlTarget, validateQuery, type QueryTarget } from '../../src/index.js';
import { MONGO_FUNCTIONS } from '../../src/backends/mongo/functions.js';
import { SQL_FUNCTIONS, sqlFunctionRefusal } from '../../src/backends/sql/functions.js';
import { REFERENCE_FUNCTIONS } from '../../src/reference/functions.js';
import { FUNCTIONS, FUNCTION_NAMES, type ParameterKind } from '../../src/semantic/functions.js';
import { CANONICAL_FUNCTIONS, type CanonicalFunctionName } from '../../src/syntax/ast.js';

/**
 * The canonical functions of OData 4.01 (URL Conventions 5.1.1.5 to 5.1.1.11; the ABNF's
 * methodCallExpr, boolMethodCallExpr, castExpr and isofExpr), `case` aside (a node of its own),
 * and OData 2.0's `substringof`.
 */
const SPEC = [
  ...['concat', 'contains', 'endswith', 'indexof', 'length', 'startswith', 'substring', 'matchesPattern', 'tolower', 'toupper', 'trim'],
  ...['hassubset', 'hassubsequence'],
  ...['date', 'day', 'fractionalseconds', 'hour', 'maxdatetime', 'mindatetime', 'minute', 'month', 'now', 'second', 'time'],
  ...['totaloffsetminutes', 'totalseconds', 'year'],
  ...['ceiling', 'floor', 'round'],
  ...['cast', 'isof'],
  ...['geo.distance', 'geo.intersects', 'geo.length'],
  'substringof',
];

describe('the canonical function registry', () => {
  it('names every function of the spec and every function the parser reads, once', () => {
    expect([...FUNCTION_NAMES].sort()).toEqual([...SPEC].sort());
    expect([...FUNCTION_NAMES].sort()).toEqual(Object.keys(CANONICAL_FUNCTIONS).sort());
  });

  it('says which functions are predicates, which one is not deterministic, and what null gives', () => {
    expect(FUNCTION_NAMES.filter((name) => FUNCTIONS[name].predicate)).toEqual([
      'contains',
      'startswith',
      'endswith',
      'substringof',
      'matchesPattern',
      'hassubset',
      'hassubsequence',
      'isof',
      'geo.intersects',
    ]);
    expect(FUNCTION_NAMES.filter((name) => !FUNCTIONS[name].deterministic)).toEqual(['now']);
    expect(FUNCTION_NAMES.filter((name) => FUNCTIONS[name].nulls === 'no arguments')).toEqual(['now', 'mindatetime', 'maxdatetime']);
    expect(FUNCTION_NAMES.filter((name) => FUNCTIONS[name].nulls === 'false')).toEqual(['isof']);
  });

  it.each([
    ['SQL', SQL_FUNCTIONS],
    ['MongoDB', MONGO_FUNCTIONS],
    ['in memory', REFERENCE_FUNCTIONS],
  ] as const)('has the %s table cover every name of it, and nothing else', (_, table) => {
    expect(Object.keys(table).sort()).toEqual([...FUNCTION_NAMES].sort());
  });
});

const model = defineModel({
  namespace: 'Probe',
  entityTypes: {
    Item: {
      key: ['id'],
      properties: {
        id: 'Edm.Int32',
        name: 'Edm.String',
        price: 'Edm.Decimal',
        day: 'Edm.Date',
        at: 'Edm.DateTimeOffset',
        clock: 'Edm.TimeOfDay',
        span: 'Edm.Duration',
        tags: 'Collection(Edm.String)',
        p: 'Edm.GeographyPoint',
        q: 'Edm.GeographyPolygon',
        l: 'Edm.GeographyLineString',
      },
    },
  },
  entitySets: { items: { type: 'Item' } },
});

const ARGUMENTS: Readonly<Record<ParameterKind, string>> = {
  string: 'name',
  number: 'price',
  integer: 'id',
  date: 'day',
  dateTimeOffset: 'at',
  timeOfDay: 'clock',
  duration: 'span',
  collection: 'tags',
  point: 'p',
  lineString: 'l',
  polygon: 'q',
};

/** A call of each overload of `name` on properties of the model (a literal pattern for `matchesPattern`). */
function calls(name: CanonicalFunctionName): string[] {
  const signatures = FUNCTIONS[name].signatures;
  if (signatures === 'type argument') return [`${name}(id,Edm.Int64)`];
  const argument = (kind: ParameterKind, i: number): string => (name === 'matchesPattern' && i === 1 ? "'^a'" : ARGUMENTS[kind]);
  return signatures.map(({ parameters }) => `${name}(${parameters.map(argument).join(',')})`);
}

/**
 * The query options that use a call: as a condition (predicates) and as a value (not ordering by
 * a constant: SQL refuses to order by `maxdatetime()`'s picoseconds, whatever the function).
 */
function queries(name: CanonicalFunctionName): string[] {
  const constant = FUNCTIONS[name].nulls === 'no arguments';
  return calls(name).flatMap((call) => {
    if (FUNCTIONS[name].predicate) return [`$filter=${call}`, `$filter=${call} eq true`];
    return constant ? [`$filter=${call} eq null`] : [`$filter=${call} eq null`, `$orderby=${call}`];
  });
}

const targets: readonly QueryTarget[] = [
  ...Object.values(DIALECTS).map((dialect) => sqlTarget(dialect)),
  mongoTarget(),
  { name: 'in memory', check: (bound) => void compileQuery(bound) },
];

/** The error each backend gave, before the tables, for a function it refuses. */
function refusal(target: string, name: CanonicalFunctionName, query: string): string {
  const option = query.slice(0, query.indexOf('='));
  if (target === 'in memory') return `The in-memory backend does not implement '${name}'`;
  if (target === 'MongoDB') return `The MongoDB backend does not support the function '${name}' at position 0 in ${option}`;
  if (name === 'matchesPattern') {
    return `The SQL backend does not support 'matchesPattern' on ${target} (it has no regular expressions) at position 0 in ${option}`;
  }
  if (name.startsWith('geo.')) {
    const reason = sqlFunctionRefusal(
      name,
      Object.values(DIALECTS).find((dialect) => dialect.displayName === target)!,
    );
    return `The SQL backend does not support '${name}' on ${target} (${reason}) at position 0 in ${option}`;
  }
  const what = FUNCTIONS[name].predicate ? 'as a condition' : '(yet)';
  return `The SQL backend does not support the function '${name}' ${what} at position 0 in ${option}`;
}

/** What a target refuses whatever the function: SQL Server has no collection properties. */
function unrelated(target: string, query: string): string | undefined {
  if (target !== 'SQL Server' || !query.includes('tags')) return undefined;
  return 'The SQL backend does not support collection properties on SQL Server (yet) at position 0 in $filter';
}

describe("each backend's table", () => {
  it('lists the targets of the capability table in the order of the query targets', () => {
    expect(FUNCTION_TARGETS.map(([name]) => name)).toEqual(targets.map((target) => target.name));
  });

  it.each(FUNCTION_NAMES.map((name) => [name]))('says where %s runs: it runs there, and elsewhere it gets the same error as before', (name) => {
    let refusals = 0;
    FUNCTION_TARGETS.forEach(([target, refused], i) => {
      for (const query of queries(name)) {
        const diagnostics = validateQuery(query, { model, entitySet: 'items', target: targets[i] });
        const expected = refused(name) === undefined ? unrelated(target, query) : refusal(target, name, query);
        if (refused(name) !== undefined) refusals++;
        expect(
          diagnostics.map((d) => [d.code, d.message]),
          `${query} on ${target}`,
        ).toEqual(expected === undefined ? [] : [['unsupported_feature', expected]]);
      }
    });
    expect(refusals).toBe(FUNCTION_TARGETS.filter(([, refused]) => refused(name) !== undefined).length * queries(name).length);
  });
});

describe('a refusal that depends on the dialect', () => {
  const hooks = [
    ['date', 'dateOf', '$filter=date(at) eq null'],
    ['time', 'timeOf', '$filter=time(at) eq null'],
    ['fractionalseconds', 'fractionalSeconds', '$filter=fractionalseconds(at) eq null'],
    ['totalseconds', 'totalSeconds', '$filter=totalseconds(span) eq null'],
    ['matchesPattern', 'matchesPattern', "$filter=matchesPattern(name,'^a')"],
  ] as const;

  it.each(hooks)("follows the dialect's hooks: %s on a dialect without %s is refused, with the reason of the table", (name, hook, query) => {
    const dialect = { ...DIALECTS.postgres, displayName: 'Custom', [hook]: undefined };
    expect(sqlFunctionRefusal(name, DIALECTS.postgres)).toBeUndefined();
    expect(validateQuery(query, { model, entitySet: 'items', target: sqlTarget(DIALECTS.postgres) })).toEqual([]);
    expect(sqlFunctionRefusal(name, dialect)).toBe(name === 'matchesPattern' ? 'no regular expressions' : `no \`${hook}\` hook (yet)`);
    const what = name === 'matchesPattern' ? "'matchesPattern' on Custom (it has no regular expressions)" : `'${name}' on Custom (yet)`;
    const diagnostics = validateQuery(query, { model, entitySet: 'items', target: sqlTarget(dialect) });
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([['unsupported_feature', `The SQL backend does not support ${what} at position 0 in $filter`]]);
  });
});
