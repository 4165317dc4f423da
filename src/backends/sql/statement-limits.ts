/**
 * Hard bounds on one SQL statement: its length (`maxStatementLength`, an option of `toSql`) and
 * its parameters (the dialect's `maxParameters`, at most what the engine or its driver takes).
 * Past either, `toSql` fails with a `query_too_complex` ODataError (400) before any database sees
 * the statement: a database parses a long statement for as long as it takes, ignoring its
 * statement timeout, and refuses too many parameters with an error of its own.
 */
import { ODataError } from '../../errors/odata-error.js';
import type { Dialect } from './dialect.js';

/** The longest statement `toSql` makes by default, in characters. */
export const DEFAULT_MAX_STATEMENT_LENGTH = 1_000_000;

/** The error of a statement (or a part of it already) longer than `max` characters. */
export function statementTooLong(max: number): ODataError {
  return new ODataError({
    code: 'query_too_complex',
    reason: `The query is too complex: its SQL statement would be longer than ${max} characters. To increase the limit, set the 'maxStatementLength' option of toSql.`,
    appendLocation: false,
  });
}

/** The statement `sql` with `parameters`, checked against both bounds. */
export function checkStatement(sql: string, parameters: number, dialect: Dialect, maxLength: number): void {
  if (sql.length > maxLength) throw statementTooLong(maxLength);
  const max = dialect.maxParameters;
  if (max !== undefined && parameters > max) {
    throw new ODataError({
      code: 'query_too_complex',
      reason: `The query is too complex: its SQL statement would have ${parameters} parameters, and ${dialect.displayName} takes at most ${max}.`,
      appendLocation: false,
    });
  }
}

/**
 * What a compilation that ran out of room threw, as the ODataError it stands for: a string past
 * the engine's longest (`RangeError: Invalid string length`) or a stack overflow.
 */
export function outOfRoom(error: unknown, maxLength: number): unknown {
  if (!(error instanceof RangeError)) return error;
  if (/string length/i.test(error.message)) return statementTooLong(maxLength);
  return new ODataError({ code: 'query_too_complex', reason: 'The query is too complex to compile to one SQL statement.', appendLocation: false });
}
