/**
 * The type of an aggregate's value (Data Aggregation 3.1.3): `sum` is wide enough for its input
 * (integers sum as Int64, Decimal as Decimal, Single and Double as Double), `average` is Double
 * (Decimal for Decimal input), `min` and `max` keep the input's type, `countdistinct` and
 * `$count` are Int64 (the extension says Decimal with scale 0; ASP.NET Core OData and OData.NET
 * use Int64, and so does this engine: see grammar/DEVIATIONS.md).
 */
import type { AggregationMethod } from '../bound-ast.js';
import { DECIMAL, DOUBLE, INT64, isIntegerType, isNumeric, isOrderable, isPrimitive, type ExpressionType } from '../types.js';

/** The type of `method` over values of `input`, or a reason it cannot apply. */
export function aggregateType(method: AggregationMethod, input: ExpressionType): ExpressionType | string {
  // A custom method's type is its definition's (custom-aggregates.ts binds it).
  if (typeof method === 'object') return `the custom aggregation method '${method.name}' is typed by its definition`;
  switch (method) {
    case 'countdistinct':
      return input.kind === 'collection' ? 'countdistinct needs a single value' : INT64;
    case 'min':
    case 'max':
      return isOrderable(input) && input.kind !== 'null' ? input : `${method} needs values that can be ordered`;
    case 'sum':
      if (!isNumeric(input)) return 'sum needs a numeric value';
      return isIntegerType(input) ? INT64 : isPrimitive(input, 'Edm.Decimal') ? DECIMAL : DOUBLE;
    case 'average':
      if (!isNumeric(input)) return 'average needs a numeric value';
      return isPrimitive(input, 'Edm.Decimal') ? DECIMAL : DOUBLE;
  }
}
