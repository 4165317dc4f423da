/**
 * Shared machinery for the model-bound conformance suites (OData.net and Olingo): run one query
 * against the binder (or, for syntax-only cases, the parser), and judge the outcome against the
 * reference's verdict and error kind.
 *
 * A case agrees when the verdicts agree and, for an invalid case, our error code is one of the
 * codes that correspond to the reference's error kind.
 */
import { bindQuery, ODataError, parseQuery, type Model, type ODataErrorCode, type ValidationSettings } from '../../src/index.js';

/** Our codes for a malformed input: any of them matches a reference's syntax error. */
export const SYNTAX: readonly ODataErrorCode[] = ['syntax_error', 'unexpected_end', 'invalid_token', 'invalid_literal'];

/**
 * The reference parsers enforce none of ASP.NET Core's validation limits (OData.net's
 * `ODataUriParserSettings` default to `int.MaxValue`, Olingo has none), so the cases are bound
 * with our limits out of the way: they compare parsing and binding, not validation settings.
 */
export const NO_LIMITS: ValidationSettings = {
  maxTop: Number.MAX_SAFE_INTEGER,
  maxExpansionDepth: 1000,
  maxNodeCount: 100_000,
  maxAnyAllExpressionDepth: 1000,
  maxOrderByNodeCount: 1000,
  maxFunctionCallDepth: 1000,
};

export type Outcome = { readonly accepted: true } | { readonly accepted: false; readonly code: ODataErrorCode; readonly message: string };

function attempt(run: () => unknown): Outcome {
  try {
    run();
    return { accepted: true };
  } catch (error) {
    if (error instanceof ODataError) return { accepted: false, code: error.code, message: error.message };
    throw error;
  }
}

/** Binds a raw query string (as it would follow `?`) to an entity set, `$search` parsed with the search grammar. */
export function bindOutcome(query: string, model: Model, entitySet: string): Outcome {
  return attempt(() => bindQuery(query, { model, entitySet, parse: { search: 'grammar' }, ...NO_LIMITS }));
}

/** Parses a raw query string only (for cases the reference runs through its syntactic parser alone). */
export function parseOutcome(query: string): Outcome {
  return attempt(() => parseQuery(query, { search: 'grammar' }));
}

/** `name=value` with the value percent-encoded, so that `&`, `#`, `%` and `+` in it stay data. */
export function queryOption(name: string, value: string): string {
  return `${name}=${encodeURIComponent(value)}`;
}

/** The verdict on one case: not applicable (with the reason), or run and judged. */
export type Verdict =
  | { readonly scope: 'not applicable'; readonly reason: string }
  | { readonly scope: 'applicable'; readonly outcome: Outcome; readonly agrees: boolean; readonly expectedCodes?: readonly ODataErrorCode[] };

/** Judges an outcome: for a valid case, accepted; for an invalid one, rejected with one of `expectedCodes`. */
export function judge(outcome: Outcome, valid: boolean, expectedCodes: readonly ODataErrorCode[] | undefined): Verdict {
  if (valid) return { scope: 'applicable', outcome, agrees: outcome.accepted };
  const codes = expectedCodes ?? [];
  return { scope: 'applicable', outcome, expectedCodes: codes, agrees: !outcome.accepted && codes.includes(outcome.code) };
}

/** One-line description of an outcome, for test names and failure messages. */
export function describeOutcome(outcome: Outcome): string {
  return outcome.accepted ? 'accepted' : `rejected (${outcome.code}): ${outcome.message}`;
}
