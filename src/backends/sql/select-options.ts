/**
 * Options on `$select` items (OData 4.01, semantic/select-options.ts) in SQL: the JSON array of a
 * collection of complex values rebuilt from its elements (the dialect's `numbered` elements), those
 * that pass `$filter`, in `$orderby` order then their stored order, paged by `$skip`/`$top`, each
 * an object of the members the nested `$select` names (the dialect's `expandMany`, as for an
 * expansion); null stays null. On the request's own rows only; refused (`unsupported_feature`):
 * `$count` and `$compute` in the options, nested options, a path inside a complex value, and
 * dialects without `numbered` elements.
 */
import type { EntitySet, Property, StructuredType } from '../../model/model.js';
import { unsupportedFeature } from '../../passes/unsupported.js';
import type { BoundQueryOptions, BoundSelect } from '../../semantic/bound-ast.js';
import { fromReference } from '../../semantic/types.js';
import type { Scope, SqlCompiler } from './compiler.js';
import type { JsonEntry } from './dialect.js';
import { orderByItems } from './ordering.js';

/** Why the options of `item` cannot run in SQL, or `undefined` when they can (on the request's rows). */
export function selectOptionsRefused(item: BoundSelect['properties'][number], compiler: SqlCompiler): string | undefined {
  const options = item.options as BoundQueryOptions;
  const property = item.path[item.path.length - 1] as Property;
  const within = `in the options of the $select item '${property.name}'`;
  if (item.path.length !== 1) return `options on the $select path inside a complex value '${property.name}'`;
  if (compiler.dialect.complexCollections?.numbered === undefined) return `options on the $select item '${property.name}' on ${compiler.dialect.displayName}`;
  if (options.count === true) return `$count ${within}`;
  if ((options.compute ?? []).length > 0) return `$compute ${within}`;
  if (options.select.properties.some((nested) => nested.options !== undefined || nested.path.length !== 1)) return `nested options or paths ${within}`;
  return undefined;
}

/** The JSON array the options of `item` give from `column` (the collection's JSON column of a row of `set`), or null. */
export function selectOptionsSql(compiler: SqlCompiler, item: BoundSelect['properties'][number], column: string, set: EntitySet, index: number): string {
  const dialect = compiler.dialect;
  const options = item.options as BoundQueryOptions;
  const property = item.path[item.path.length - 1] as Property;
  const type = (property.type as { readonly type: StructuredType }).type;
  const hooks = dialect.complexCollections as NonNullable<typeof dialect.complexCollections>;
  const numbered = hooks.numbered as NonNullable<typeof hooks.numbered>;
  const { expandMany } = dialect;
  const refuse = (what: string): never => {
    throw unsupportedFeature('SQL', what, { node: item, option: '$select' });
  };
  if (expandMany === undefined) return refuse(`options on the $select item '${property.name}' on ${dialect.displayName}`);
  const alias = `s${index}`;
  const elements = numbered(column, alias);
  // The element's members are read through the scope's element (as in `$count($filter=…)` of the collection).
  const scope: Scope = { alias, type, set, variables: new Map(), element: elements.element };
  return compiler.withOption('$select', () => {
    const where = options.filter === undefined ? '1 = 1' : compiler.condition(options.filter, scope);
    const members = options.select.all
      ? [...type.properties.values()].filter((p) => p.selectable)
      : options.select.properties.map((p) => p.path[0] as Property);
    const entries: JsonEntry[] = members.map((member) => {
      if (member.collection || member.type.kind === 'complex') return { path: [member.name], value: hooks.json(elements.element, [member.name]), kind: 'json' };
      const typed = hooks.typed(hooks.member(elements.element, [member.name]), fromReference(member.type));
      if ('refused' in typed) return refuse(typed.refused);
      return { path: [member.name], value: typed.sql, kind: 'value' };
    });
    const order = (): string => [orderByItems(compiler, options, scope, '$select'), `${elements.ordinal} ASC`].filter((part) => part !== '').join(', ');
    const top = options.top === undefined ? undefined : compiler.value(options.top, 'rowCount');
    const skip = options.skip === undefined ? undefined : compiler.value(options.skip, 'rowCount');
    const array = expandMany(
      { entries, from: elements.source, where, order, paging: top === undefined && skip === undefined ? '' : dialect.paging(top, skip) },
      (text) => compiler.value(text, 'string'),
    );
    return `(CASE WHEN ${column} IS NULL THEN NULL ELSE ${array} END)`;
  });
}
