/**
 * The host's definitions of custom aggregates and custom aggregation methods (OData Data
 * Aggregation 4.0, sections 3.1.3 and 6.2), as `BindSettings.customAggregates` and
 * `customAggregationMethods` take them; custom-aggregates.ts binds them. Types only.
 */
import type { PrimitiveTypeName } from '../../model/model.js';

/**
 * How the service computes the custom aggregates its model declares: by name, an aggregate
 * expression in OData syntax over standard methods, bound against the entities the custom
 * aggregate aggregates (`{ Forecast: 'Amount mul 1.1 with sum', Amount: 'Amount with sum' }`);
 * or a function of the name and where it is used (the entity set, when the rows are its
 * entities, and the qualified name of the entity type), giving the definition or `undefined`
 * (not defined there).
 *
 * A definition may be `$count`, aggregate along a navigation path (`Items/Amount with sum`) and
 * have `from` steps; it may not name another custom aggregate. Its type must be the declared one
 * (a definition of another type is a host error, status 500: `cast(Quantity,Edm.Decimal) with sum`
 * gives a Decimal).
 */
export type CustomAggregateDefinitions =
  Readonly<Record<string, string>> | ((name: string, where: { readonly entitySet: string | undefined; readonly type: string }) => string | undefined);

/**
 * A custom aggregation method (`Amount with Custom.concat as Names`) as the service defines it:
 * portable (`expression`), or per backend (`memory`, `sql`, `mongo`; a backend without its
 * definition refuses the request with `unsupported_feature`). The methods of
 * `BindSettings.customAggregationMethods` can be used whether or not the model declares them
 * (`Aggregation.ApplySupported/CustomAggregationMethods` advertises them to clients); one the
 * model declares and the service does not define is refused with status 501.
 *
 * @example
 * ```ts
 * const customAggregationMethods = {
 *   'Custom.sumOfSquares': { expression: '$this mul $this with sum' },
 *   'Custom.concat': {
 *     type: 'Edm.String',
 *     inputTypes: ['Edm.String'],
 *     memory: (values) => [...new Set(values as string[])].sort().join(','),
 *     sql: { postgres: "string_agg(DISTINCT {value}, ',' ORDER BY {value})" },
 *   },
 * } satisfies Record<string, CustomAggregationMethod>;
 * ```
 */
export interface CustomAggregationMethod {
  /**
   * A portable definition: an aggregate expression with a standard method, over `$this`, the
   * aggregated value (`'$this mul $this with sum'`, `'$this with max from Time with average'`).
   * The request's value is put in place of each `$this` and the result bound as the request's
   * item; it runs on every backend. With it, the other fields are not read.
   */
  readonly expression?: string;
  /** The type of the result: a primitive type, or `'input'` for the aggregated value's own type. Required without `expression`. */
  readonly type?: PrimitiveTypeName | 'input';
  /** The primitive types of the values the method takes (default: every primitive type). */
  readonly inputTypes?: readonly PrimitiveTypeName[];
  /**
   * In memory (the reference): the result from the values of a group that are not null, in the
   * order of its rows, as rows store them (a Decimal as its text, an Int64 as a `bigint`), in the
   * storage form of `type`. Each related entity's value counts once along a navigation path.
   */
  readonly memory?: (values: readonly unknown[]) => unknown;
  /**
   * Per SQL dialect name (`postgres`, `mysql`, `sqlite`, `mssql`, `duckdb`): an aggregate function
   * call in which `{value}` stands for the compiled value, e.g.
   * `"string_agg(DISTINCT {value}, ',' ORDER BY {value})"`. The engine puts in nothing but the
   * compiled value (columns of the model, parameters); the rest of the text is the host's SQL.
   * Most aggregate functions skip nulls; the order in which they see values is the database's.
   */
  readonly sql?: Readonly<Record<string, string>>;
  /**
   * MongoDB: an aggregation expression over the array of the group's values that are not null,
   * which stands wherever a string is `'{values}'`, e.g.
   * `{ $reduce: { input: '{values}', initialValue: 0, in: { $add: ['$$value', '$$this'] } } }`.
   */
  readonly mongo?: unknown;
}

/** The custom aggregation methods of a service, by qualified name (`Custom.concat`). */
export type CustomAggregationMethods = Readonly<Record<string, CustomAggregationMethod>>;
