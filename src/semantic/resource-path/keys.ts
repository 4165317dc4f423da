/**
 * Key predicates of a resource path: `(1)`, `(A=1,B='x')`, `(@k)` with `@k=1` among the query's
 * parameter aliases, and key-as-segment values (`Orders/1`, `People/O'Neil`). Each value must be a
 * literal of the key property's type; the key becomes `key eq value and …`, bound by the query
 * binder against the entities it selects from.
 */
import { ODataError } from '../../errors/odata-error.js';
import { ALL_CAPABILITIES, type EntitySet, type Property, type StructuredType } from '../../model/model.js';
import type { Expression, Literal, SegmentArgument, Span } from '../../syntax/ast.js';
import { parseFilter } from '../../syntax/parse.js';
import { RESOURCE_PATH } from '../../syntax/parse.js';
import { bindQueryToSet } from '../bind-query.js';
import type { BindSettings } from '../settings.js';
import type { BoundKeyValue } from './bound-resource-path.js';
import type { Model } from '../../model/model.js';

/** The entities a key selects from: their set, or a stand-in of their type where no set is known. */
export function setOrStandIn(set: EntitySet | undefined, type: StructuredType): EntitySet {
  return set ?? { name: type.name, type, capabilities: ALL_CAPABILITIES, bindings: new Map() };
}

function badKey(reason: string, at: Span): ODataError {
  return new ODataError({ code: 'syntax_error', reason, option: RESOURCE_PATH, position: at.start });
}

/** A key value as written: a literal, or an alias whose value (in the query string) is a literal. */
function literalOf(value: Expression, aliases: Readonly<Record<string, Expression>> | undefined, at: Span): Expression {
  let resolved = value;
  if (value.kind === 'alias') {
    const aliased = aliases?.[value.name];
    if (aliased === undefined) throw badKey(`The parameter alias '@${value.name}' has no value in the query string`, at);
    resolved = aliased;
  }
  if (resolved.kind !== 'literal' || resolved.type === 'null') throw badKey(`A key value must be a literal`, at);
  return { ...resolved, span: value.span };
}

/**
 * One key property: its name in a key predicate (the property's name, or its alias where the key
 * names a property of a complex property: CSDL `<PropertyRef Name="Info/ID" Alias="InfoID"/>`),
 * and the properties from the entity to it.
 */
export interface KeyPart {
  readonly name: string;
  readonly steps: readonly Property[];
}

/** The key of an entity type, with key aliases where its CSDL declares them. */
export function keyParts(type: StructuredType): KeyPart[] {
  let declaring: StructuredType | undefined = type;
  while (declaring?.baseType !== undefined && declaring.csdl?.$Key === undefined) declaring = declaring.baseType;
  const written = declaring?.csdl?.$Key;
  const entries: [string, string][] = Array.isArray(written)
    ? written.flatMap((k): [string, string][] =>
        typeof k === 'string'
          ? [[k, k]]
          : typeof k === 'object' && k !== null && !Array.isArray(k)
            ? Object.entries(k).flatMap(([alias, path]) => (typeof path === 'string' ? [[alias, path] as [string, string]] : []))
            : [],
      )
    : type.key.map((k) => [k, k]);
  return entries.map(([name, path]) => {
    const steps: Property[] = [];
    let owner: StructuredType | undefined = type;
    for (const step of path.split('/')) {
      const property: Property | undefined = owner?.properties.get(step);
      if (property === undefined) throw new ODataError({ code: 'invalid_model', status: 500, reason: `The key '${path}' of '${type.name}' names no property` });
      steps.push(property);
      owner = property.type.kind === 'complex' ? property.type.type : undefined;
    }
    return { name, steps };
  });
}

/** The key part for each key value, from named values or one positional value. */
function pairValues(type: StructuredType, args: readonly SegmentArgument[], span: Span): { part: KeyPart; value: SegmentArgument }[] {
  const key = keyParts(type);
  if (args.length === 1 && args[0]?.name === undefined) {
    if (key.length !== 1) throw badKey(`The key of '${type.name}' has ${key.length} properties: name each (${key.map((k) => `${k.name}=…`).join(',')})`, span);
    return [{ part: key[0] as KeyPart, value: args[0] }];
  }
  const out: { part: KeyPart; value: SegmentArgument }[] = [];
  for (const arg of args) {
    const part = key.find((k) => k.name === arg.name);
    if (part === undefined) throw badKey(`'${arg.name ?? ''}' is not a key property of '${type.name}'`, arg.span);
    if (out.some((pair) => pair.part === part)) throw badKey(`The key property '${arg.name}' is given twice`, arg.span);
    out.push({ part, value: arg });
  }
  if (out.length !== key.length) throw badKey(`The key of '${type.name}' is ${key.map((k) => k.name).join(',')}: give every key property`, span);
  return out;
}

/** A key-as-segment text as a literal of the key property's type (a string key takes the text as it is). */
export function segmentLiteral(property: Property, text: string, span: Span): Expression | undefined {
  if (property.type.kind === 'primitive' && property.type.name === 'Edm.String') {
    return { kind: 'literal', type: 'Edm.String', value: text, span } satisfies Literal;
  }
  try {
    const parsed = parseFilter(text);
    return parsed.kind === 'literal' && parsed.type !== 'null' ? { ...parsed, span } : undefined;
  } catch {
    return undefined;
  }
}

/** Binds `key eq value and …` over `set` (a stand-in set for entities of no known set). */
export function bindKey(
  model: Model,
  set: EntitySet,
  pairs: readonly { part: KeyPart; value: Expression }[],
  span: Span,
  aliases: Readonly<Record<string, Expression>> | undefined,
  settings: Partial<BindSettings>,
): { values: BoundKeyValue[]; filter: import('../bound-ast.js').BoundExpression } {
  const comparisons: Expression[] = pairs.map(({ part, value }) => ({
    kind: 'binary',
    operator: 'eq',
    left: {
      kind: 'path',
      head: { kind: 'implicit' },
      segments: part.steps.map((step) => ({ kind: 'member', name: step.name, span: value.span })),
      span: value.span,
    },
    right: value,
    span: value.span,
  }));
  const filter = comparisons.reduce((left, right) => ({ kind: 'binary', operator: 'and', left, right, span }));
  let bound;
  try {
    bound = bindQueryToSet({ kind: 'query', filter, ...(aliases === undefined ? {} : { aliases }) }, { ...settings, model, entitySet: set.name }, set);
  } catch (error) {
    if (error instanceof ODataError) throw error.relocate(RESOURCE_PATH);
    throw error;
  }
  const where = bound.filter as import('../bound-ast.js').BoundExpression;
  const values: BoundKeyValue[] = [];
  const collect = (node: import('../bound-ast.js').BoundExpression): void => {
    if (node.kind === 'binary' && node.operator === 'and') {
      collect(node.left);
      collect(node.right);
    } else if (node.kind === 'binary') {
      values.push({ property: pairs[values.length]?.part.steps.at(-1) as Property, value: node.right });
    }
  };
  collect(where);
  return { values, filter: where };
}

/** The key values of a parenthesised key predicate. */
export function keyPredicate(
  type: StructuredType,
  args: readonly SegmentArgument[],
  span: Span,
  aliases: Readonly<Record<string, Expression>> | undefined,
): { part: KeyPart; value: Expression }[] {
  if (args.length === 0) throw badKey(`Empty key predicate: give the key of '${type.name}' in the parentheses`, span);
  if (type.key.length === 0) throw badKey(`'${type.name}' has no key`, span);
  return pairValues(type, args, span).map(({ part, value }) => ({ part, value: literalOf(value.value, aliases, value.span) }));
}
