/**
 * The host's custom transformations of `$apply` (Data Aggregation 4.0, section 7.7 and the
 * `customFunction` rule of the ABNF): service-defined functions bound to the collection of rows
 * the previous transformation gives, used as a transformation
 * (`groupby((Customer/Country),Self.TopCountAndRemainder(Count=1,Property='Total'))`), as
 * `BindSettings.customTransformations` takes them. Types only.
 */
import type { PrimitiveTypeName } from '../../model/model.js';

/**
 * One custom transformation as the service defines it.
 *
 * @example
 * ```ts
 * const customTransformations = {
 *   'Self.TopCountAndRemainder': {
 *     parameters: { Count: 'Edm.Int32', Property: 'Edm.String' },
 *     memory: (rows, { Count, Property }) => {
 *       const sorted = [...rows].sort((a, b) => Number(b[Property as string]) - Number(a[Property as string]));
 *       const rest = sorted.slice(Count as number);
 *       const remainder = rest.reduce((sum, row) => sum + Number(row[Property as string]), 0);
 *       return [...sorted.slice(0, Count as number), ...(rest.length === 0 ? [] : [{ [Property as string]: remainder }])];
 *     },
 *   },
 * } satisfies CustomTransformations;
 * ```
 */
export interface CustomTransformation {
  /**
   * The parameters besides the bound collection, by name, each a primitive type: the request
   * passes each by name (`Count=1`) as a literal or a parameter alias of one. Every one is
   * required; an unknown or missing one, or a value of another type, is refused (400).
   */
  readonly parameters?: Readonly<Record<string, PrimitiveTypeName>>;
  /**
   * In memory (the reference): the rows it gives from the input rows (in their order, as rows
   * store values: a Decimal as its text, an Int64 as a `bigint`) and the arguments (the same
   * storage forms). The rows it gives may lack properties of the input's type (a remainder row
   * without `Product`); properties of other names are not returned. Backends without a
   * definition of their own (SQL, MongoDB) refuse the transformation with `unsupported_feature`.
   * The function must not change the input rows. What it throws, or a result that is no array of
   * objects, is a service error (status 500, `invalid_result`).
   */
  readonly memory?: (rows: readonly Readonly<Record<string, unknown>>[], args: Readonly<Record<string, unknown>>) => readonly Record<string, unknown>[];
}

/** The custom transformations of a service, by the name requests use (a qualified name: `Self.TopCountAndRemainder`). */
export type CustomTransformations = Readonly<Record<string, CustomTransformation>>;
