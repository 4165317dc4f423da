/** What validateQuery and validateFilter report. */
import type { ODataErrorCode } from '../errors/odata-error.js';

/** One problem of a query, ready for an editor's squiggle. */
export interface Diagnostic {
  readonly code: ODataErrorCode | 'internal_error';
  readonly message: string;
  readonly severity: 'error' | 'warning';
  /** The option as written (`$filter`), or `undefined` for the query string as a whole. */
  readonly option: string | undefined;
  /** Offsets into the query string as given (UTF-16, end exclusive). */
  readonly range: { readonly start: number; readonly end: number };
  /** The HTTP status a server would answer with. */
  readonly status: number;
}
