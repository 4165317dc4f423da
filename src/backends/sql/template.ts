/**
 * `sqlTemplate`: a statement or piece of `toSql` as the arguments of a tagged template (the SQL
 * text between the placeholders, and the parameters), so that query builders whose `sql` tag
 * binds each value as a parameter (Kysely, postgres.js, Drizzle, Slonik) can compose it with
 * their own SQL and number the placeholders themselves. Values stay parameters throughout.
 */
import { ODataError } from '../../errors/odata-error.js';
import type { Dialect, DialectName } from './dialect.js';
import { DIALECTS } from './dialects/index.js';
import type { SqlStatement } from './to-sql.js';

/**
 * Splits `statement` (compiled for `dialect`) at its placeholders: `[strings, ...params]`, the
 * arguments a tagged template function receives, with the SQL text around each placeholder
 * (a typed placeholder's cast, `$1::integer`, stays in the text after it).
 *
 * @throws {ODataError} `invalid_result` (500) when the text does not hold the statement's placeholders in order
 * @example
 * ```ts
 * const { where } = toSql(bound, { dialect: 'postgres' });
 * const condition = where === undefined ? sql`TRUE` : sql(...sqlTemplate(where, 'postgres')); // Kysely
 * ```
 */
export function sqlTemplate(statement: SqlStatement, dialect: DialectName | Dialect): [TemplateStringsArray, ...unknown[]] {
  const d = typeof dialect === 'string' ? DIALECTS[dialect] : dialect;
  const strings: string[] = [];
  let from = 0;
  // Placeholders are numbered in the order of the text: each is searched after the previous one,
  // and must not continue with a digit ($1 is not the start of $12).
  for (let index = 1; index <= statement.params.length; index++) {
    const placeholder = d.placeholder(index);
    let at = statement.sql.indexOf(placeholder, from);
    while (at >= 0 && /\d/.test(statement.sql[at + placeholder.length] ?? '') && /\d$/.test(placeholder)) at = statement.sql.indexOf(placeholder, at + 1);
    if (at < 0)
      throw new ODataError({
        code: 'invalid_result',
        status: 500,
        reason: `The SQL text has no placeholder ${placeholder} for its parameter ${index}`,
        appendLocation: false,
      });
    strings.push(statement.sql.slice(from, at));
    from = at + placeholder.length;
  }
  strings.push(statement.sql.slice(from));
  const template = Object.assign(strings, { raw: [...strings] }) as unknown as TemplateStringsArray;
  return [template, ...statement.params];
}
