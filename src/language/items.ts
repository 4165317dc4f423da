/**
 * The items of a completion that come from the model and the function table: the members of the
 * type at the cursor (those the entity set allows there, of a fitting type), lambda variables,
 * `$compute` aliases, canonical functions, literal templates and enumeration members.
 */
import type { EnumType, NavigationProperty, Property, StructuredType } from '../model/model.js';
import { arithmeticType } from '../semantic/bind-expression.js';
import { FUNCTIONS, SIGNATURES, accepts, type ParameterKind } from '../semantic/functions.js';
import type { ProbeSite } from '../semantic/probe.js';
import { equalityComparable, fromReference, orderComparable, typeName, type ExpressionType } from '../semantic/types.js';
import type { Completion } from './completion.js';
import type { TextRange, ValueCursor } from './cursor.js';
import { descriptionOf } from './describe-query.js';

export const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
export const ARITHMETIC = new Set(['add', 'sub', 'mul', 'div', 'divby', 'mod']);

/** Whether values of the type are Boolean (or null). */
export function isBooleanLike(type: ExpressionType): boolean {
  return type.kind === 'null' || (type.kind === 'primitive' && (type.name === 'Edm.Boolean' || type.name === 'Edm.Untyped'));
}

/** The parameter kinds the overloads of the canonical function at the cursor take at its argument, if the cursor is in one's arguments. */
export function argumentKinds(cursor: ValueCursor): ReadonlySet<ParameterKind> | undefined {
  const call = cursor.call;
  if (call === undefined) return undefined;
  const overloads = SIGNATURES[call.name as keyof typeof SIGNATURES];
  if (overloads === undefined) return undefined;
  const kinds = new Set<ParameterKind>();
  for (const overload of overloads) {
    const kind = overload.parameters[call.argument];
    if (kind !== undefined) kinds.add(kind);
  }
  return kinds.size === 0 ? undefined : kinds;
}

/** Whether a member's value fits where a value of type `expected` is compared (after `operator`). */
function fits(member: Property | NavigationProperty, site: ProbeSite): boolean {
  const expected = site.expected;
  if (expected === undefined || expected.kind === 'null') return true;
  if (member.kind === 'navigation') return !member.collection;
  const type = fromReference(member.type, member.collection);
  if (type.kind === 'complex' || type.kind === 'entity') return true; // a path may continue to a fitting property
  const operator = site.operator ?? 'eq';
  if (operator === 'has') return type.kind === 'enum' && expected.kind === 'enum' && type.type === expected.type;
  // The binder's own rule for the operator (semantic/bind-expression.ts).
  if (ARITHMETIC.has(operator)) return arithmeticType(operator, expected, type) !== undefined;
  if (operator === 'eq' || operator === 'ne') return equalityComparable(expected, type);
  if (COMPARISONS.has(operator)) return orderComparable(expected, type);
  return true;
}

/** Whether the entity set's capabilities and the member's own let it stand in the probe's option. */
function allowed(member: Property | NavigationProperty, site: ProbeSite): boolean {
  const capabilities = site.first ? site.capabilities : undefined;
  switch (site.context) {
    case 'filter':
      return member.filterable && (capabilities === undefined || (capabilities.filterable && !capabilities.nonFilterableProperties.has(member.name)));
    case 'orderby':
      return (
        member.kind === 'navigation' ||
        (member.sortable && (capabilities === undefined || (capabilities.sortable && !capabilities.nonSortableProperties.has(member.name))))
      );
    case 'select':
      return member.kind === 'navigation' || member.selectable;
    case 'expand':
      return member.kind === 'navigation' ? member.expandable : member.type.kind === 'complex';
    default:
      return true;
  }
}

/** The names of the model a name at the cursor may be: members of the probe's type, variables, aliases, functions. */
export function nameItems(site: ProbeSite | undefined, range: TextRange, cursor: ValueCursor, pathOnly: boolean, prefix: string): Completion[] {
  if (site === undefined) return [];
  const items: Completion[] = [];
  const type: StructuredType | undefined = site.type;
  const kinds = site.first ? argumentKinds(cursor) : undefined;
  if (type !== undefined) {
    const members: (Property | NavigationProperty)[] = [...type.properties.values(), ...type.navigation.values()];
    // In $expand, a navigation property the list already expands (before the cursor) is not offered again.
    const expanded = site.context === 'expand' && site.first ? expandedBefore(cursor) : undefined;
    for (const member of members) {
      // (Only the names the word typed so far begins: a type of Microsoft Graph has a hundred members and more.)
      if (prefix !== '' && !member.name.toLowerCase().startsWith(prefix)) continue;
      if (!allowed(member, site) || !fits(member, site)) continue;
      if (expanded?.has(member.name) === true) continue;
      if (kinds !== undefined && !fitsKinds(member.kind === 'property' ? fromReference(member.type, member.collection) : navigationType(member), kinds))
        continue;
      const detail =
        member.kind === 'navigation'
          ? `${member.collection ? 'Collection(' : ''}${member.target.qualifiedName}${member.collection ? ')' : ''}`
          : typeName(fromReference(member.type, member.collection));
      const documentation = descriptionOf(member);
      items.push({
        label: member.name,
        kind: member.kind === 'navigation' ? 'navigation' : 'property',
        detail,
        ...(documentation === undefined ? {} : { documentation }),
        insertText: member.name,
        range,
      });
    }
  } else if (site.collection) {
    for (const lambda of ['any', 'all']) items.push({ label: lambda, kind: 'function', detail: `${lambda}(x: predicate)`, insertText: `${lambda}(`, range });
  }
  if (!site.first || pathOnly || site.context === 'select' || site.context === 'expand' || site.context === 'groupby') {
    if (site.first && site.computed !== undefined && site.context === 'select')
      for (const alias of site.computed.keys()) items.push({ label: alias, kind: 'computed', insertText: alias, range });
    return items;
  }
  for (const [name, variable] of site.variables ?? []) items.push({ label: name, kind: 'variable', detail: typeName(variable.type), insertText: name, range });
  for (const [alias, item] of site.computed ?? []) if (alias === item.alias) items.push({ label: alias, kind: 'computed', insertText: alias, range });
  if (site.context === 'filter' || site.context === 'orderby' || site.context === 'compute') items.push(...functionItems(site.expected, kinds, range, prefix));
  return items;
}

/** The names the `$expand` list at the cursor's level expands before the cursor. */
export function expandedBefore(cursor: ValueCursor): Set<string> {
  const names = new Set<string>();
  const depths: number[] = [];
  let depth = 0;
  cursor.tokens.forEach((token, i) => {
    if (token.image === '(') depth++;
    else if (token.image === ')') depth--;
    const previous = cursor.tokens[i - 1]?.image;
    depths.push(depth);
    if (previous === undefined || previous === ',' || previous === '=') names.add(token.image);
  });
  // Only the cursor's level: the list's items at the depth the cursor is at.
  return depth === 0 ? names : new Set();
}

/** The type of a navigation property's value. */
function navigationType(member: NavigationProperty): ExpressionType {
  const entity: ExpressionType = { kind: 'entity', type: member.target };
  return member.collection ? { kind: 'collection', element: entity } : entity;
}

/** Whether a value of `type` fits one of the parameter kinds (a structured value may lead to one). */
function fitsKinds(type: ExpressionType, kinds: ReadonlySet<ParameterKind>): boolean {
  if (type.kind === 'complex' || type.kind === 'entity') return true;
  for (const kind of kinds) if (accepts(kind, type)) return true;
  return false;
}

/** What a function's overload gives, where its result depends on the arguments: the numeric rounding functions give a number. */
function resultsOf(name: string): ExpressionType[] | undefined {
  const fn = FUNCTIONS[name as keyof typeof FUNCTIONS];
  if (fn.signatures === 'type argument') return name === 'isof' ? [{ kind: 'primitive', name: 'Edm.Boolean' }] : undefined;
  return fn.signatures.map((signature) =>
    typeof signature.result === 'function' ? ({ kind: 'primitive', name: 'Edm.Decimal' } as ExpressionType) : signature.result,
  );
}

/** A canonical function as completion offers it (computed once). */
interface FunctionEntry {
  readonly name: string;
  readonly detail: string;
  readonly insertText: string;
  readonly results: readonly ExpressionType[] | undefined;
}

let functionEntries: readonly FunctionEntry[] | undefined;
function functionTable(): readonly FunctionEntry[] {
  return (functionEntries ??= Object.entries(FUNCTIONS).map(([name, fn]) => {
    const overloads = SIGNATURES[name as keyof typeof SIGNATURES] ?? [];
    const detail = overloads.map((overload) => `${name}(${overload.parameters.join(', ')})`).join(' | ') || `${name}(…)`;
    const takesArguments = fn.signatures === 'type argument' || fn.signatures.some((signature) => signature.parameters.length > 0);
    return { name, detail, insertText: takesArguments ? `${name}(` : `${name}()`, results: resultsOf(name) };
  }));
}

/** The canonical functions, those returning a fitting type where one is expected (a comparison's other operand, a call's parameter). */
function functionItems(expected: ExpressionType | undefined, kinds: ReadonlySet<ParameterKind> | undefined, range: TextRange, prefix: string): Completion[] {
  const items: Completion[] = [];
  for (const { name, detail, insertText, results } of functionTable()) {
    if (prefix !== '' && !name.toLowerCase().startsWith(prefix)) continue;
    if (results !== undefined) {
      if (expected !== undefined && expected.kind !== 'null' && !results.some((result) => equalityComparable(expected, result))) continue;
      if (kinds !== undefined && !results.some((result) => fitsKinds(result, kinds))) continue;
    }
    items.push({ label: name, kind: 'function', detail, insertText, range });
  }
  // The two calls of the grammar itself (no overloads): whether a property is defined, and case(…).
  if (expected === undefined || expected.kind === 'null' || isBooleanLike(expected))
    items.push({ label: 'isdefined', kind: 'function', detail: 'isdefined(property): Edm.Boolean', insertText: 'isdefined(', range });
  items.push({ label: 'case', kind: 'function', detail: 'case(condition:value, …)', insertText: 'case(', range });
  return items;
}

/** Literal templates: of the expected type where it is known, of every type otherwise. */
export function literalItems(expected: ExpressionType | undefined, kinds: ReadonlySet<ParameterKind> | undefined, range: TextRange): Completion[] {
  const templates: [string, string, string][] = [
    ["''", 'Edm.String', 'string'],
    ['0', 'Edm.Int32', 'number'],
    ['0.0', 'Edm.Decimal', 'number'],
    ['true', 'Edm.Boolean', 'boolean'],
    ['false', 'Edm.Boolean', 'boolean'],
    ['2024-01-01', 'Edm.Date', 'date'],
    ['2024-01-01T00:00:00Z', 'Edm.DateTimeOffset', 'date and time'],
    ['12:00:00', 'Edm.TimeOfDay', 'time of day'],

    ["duration'P1D'", 'Edm.Duration', 'duration'],
    ['00000000-0000-0000-0000-000000000000', 'Edm.Guid', 'GUID'],
  ];
  const items: Completion[] = [];
  if (expected?.kind === 'enum') items.push(...enumItems(expected.type, range));
  for (const [text, type, what] of templates) {
    if (expected !== undefined && expected.kind !== 'null' && !equalityComparable(expected, { kind: 'primitive', name: type as 'Edm.String' })) continue;
    if (expected?.kind === 'enum') continue;
    if (kinds !== undefined && !fitsKinds({ kind: 'primitive', name: type as 'Edm.String' }, kinds)) continue;
    items.push({ label: text, kind: 'literal', detail: `${type} (${what})`, insertText: text, range });
  }
  // The special values of the floating types, where one is expected (their names are case-sensitive).
  if (expected === undefined || (expected.kind === 'primitive' && (expected.name === 'Edm.Double' || expected.name === 'Edm.Single'))) {
    for (const [text, what] of [
      ['NaN', 'not a number'],
      ['INF', 'infinity'],
      ['-INF', 'minus infinity'],
    ] as const)
      items.push({ label: text, kind: 'literal', detail: `Edm.Double (${what})`, insertText: text, range });
  }
  items.push({ label: 'null', kind: 'literal', detail: 'null', insertText: 'null', range });
  return items;
}

/** An enumeration's members as literals (`Ns.Color'Red'`). */
function enumItems(type: EnumType, range: TextRange): Completion[] {
  return [...type.members.keys()].map((member) => ({
    label: `${type.qualifiedName}'${member}'`,
    kind: 'enumMember' as const,
    detail: type.qualifiedName,
    insertText: `${type.qualifiedName}'${member}'`,
    range,
  }));
}
