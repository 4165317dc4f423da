/**
 * Where a handler reads its entities from: a bound query in, OData JSON records (and the count,
 * when asked) out. One implementation per backend (sources/), each a few lines over the backend's
 * compiler and reader; a service with another store writes its own.
 */
import type { BoundQuery } from '../semantic/bound-ast.js';

/** How a source is asked to read. */
export interface SourceReadOptions {
  /** `IEEE754Compatible=true`: Int64 and Decimal values as strings (see `jsonRecord`). */
  readonly ieee754Compatible: boolean;
  /** Aborted when the client goes away or the request's time is up. */
  readonly signal?: AbortSignal;
}

/** The records of a query, as OData JSON values, and `count` for `$count=true`. */
export interface SourceResult {
  readonly value: readonly Record<string, unknown>[];
  readonly count?: number;
}

/** A store the read handler runs bound queries on. */
export interface ODataSource {
  read(query: BoundQuery, options: SourceReadOptions): Promise<SourceResult>;
}
