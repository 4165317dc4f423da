/**
 * `validateFilter`: every independent problem of one `$filter` value as diagnostics, for a filter
 * box in a browser (`odata-engine/filter`). As `validateQuery` does for a `$filter`: a syntax error
 * is one diagnostic; a binding error prunes the smallest predicate that holds it, which becomes
 * `true`, and the filter is bound again, so that two unknown properties give two diagnostics.
 * Ranges are offsets into the text as given (it is not percent-decoded: a filter box holds the
 * value itself).
 */
import { ODataError } from '../errors/odata-error.js';
import { bindFilter, type FilterSettings } from '../semantic/bind-filter.js';
import type { Expression } from '../syntax/ast.js';
import { parseFilterExpression } from '../syntax/parse-filter.js';
import type { Diagnostic } from './diagnostic.js';
import { prunePredicate, tokenLength } from './prune-predicate.js';

/** Settings of {@link validateFilter}: those of `bindFilter`, plus how many diagnostics at most. */
export interface ValidateFilterSettings extends FilterSettings {
  /** Stop after this many diagnostics (default 50). */
  readonly maxDiagnostics?: number;
}

/**
 * Checks a `$filter` value against a model and returns every independent problem it finds (an
 * empty list when the filter is valid). Never throws for bad input.
 *
 * @example
 * ```ts
 * import { defineModel, validateFilter } from 'odata-engine/filter';
 * const model = defineModel({
 *   namespace: 'Shop',
 *   entityTypes: { Product: { key: ['id'], properties: { id: 'Edm.Int32', name: 'Edm.String', price: 'Edm.Double' } } },
 *   entitySets: { products: { type: 'Product' } },
 * });
 * validateFilter("nam eq 'a' and prise gt 1", { model, entitySet: 'products' }).map((d) => [d.code, d.range.start, d.range.end]);
 * // [['unknown_property', 0, 3], ['unknown_property', 15, 20]]
 * ```
 */
export function validateFilter(text: string, settings: ValidateFilterSettings): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const max = settings.maxDiagnostics ?? 50;
  const report = (error: unknown): void => {
    if (!(error instanceof ODataError)) {
      diagnostics.push({
        code: 'internal_error',
        message: 'The filter could not be checked',
        severity: 'error',
        option: '$filter',
        range: { start: 0, end: text.length },
        status: 500,
      });
      return;
    }
    let range = { start: 0, end: text.length };
    if (error.position !== undefined) {
      const start = Math.min(error.position, text.length);
      const end = Math.min(start + tokenLength(text, start), text.length);
      // An empty range (the text ended too early) underlines the character before it.
      range = end > start ? { start, end } : start > 0 ? { start: start - 1, end: start } : { start, end: start };
    }
    diagnostics.push({ code: error.code, message: error.message, severity: 'error', option: error.option ?? '$filter', range, status: error.status });
  };
  let filter: Expression | undefined;
  try {
    filter = parseFilterExpression(text, settings.parse);
  } catch (error) {
    report(error);
    return diagnostics;
  }
  for (let attempt = 0; attempt < max && diagnostics.length < max && filter !== undefined; attempt++) {
    try {
      bindFilter(filter, settings);
      break;
    } catch (error) {
      report(error);
      if (!(error instanceof ODataError)) break;
      // A limit on the whole expression (depth, node count) or an error without a place: one diagnostic.
      if (error.code === 'too_deep' || error.code === 'node_count_exceeded' || error.position === undefined) break;
      filter = prunePredicate(filter, error.position);
    }
  }
  return diagnostics.sort((a, b) => a.range.start - b.range.start);
}
