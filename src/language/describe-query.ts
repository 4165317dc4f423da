/**
 * `describeQuery`: what is under a cursor in a query string, from the bound query: the node's
 * kind and type, the property or navigation property a path segment resolves to (with the
 * model's description of it), a function's signature and which overload matched.
 */
import type { NavigationProperty, Property } from '../model/model.js';
import type { BoundExpression, BoundQuery, BoundQueryOptions } from '../semantic/bound-ast.js';
import { bindQuery } from '../semantic/bind-query.js';
import { matchedOverloadIndex, overloadTexts } from '../semantic/functions.js';
import type { BindSettings } from '../semantic/settings.js';
import { fromReference, typeName } from '../semantic/types.js';
import { forEachExpression, mapQueryExpressions, mapTransformationExpressions } from '../semantic/walk/index.js';
import { canonicalOption, type TextRange } from './cursor.js';
import { splitQueryString, type QueryStringPart } from '../syntax/query-string.js';

/** What a cursor rests on. */
export interface QueryDescription {
  /** The range of the query text the description is of (a name, a literal, a call, an operator's expression). */
  readonly range: TextRange;
  readonly kind: 'property' | 'navigation' | 'variable' | 'function' | 'literal' | 'operator' | 'lambda' | 'count' | 'computed' | 'expression';
  /** The name (a property's, a function's, an operator), or the text for a literal. */
  readonly label: string;
  /** The type of the value there (`Edm.String`, `Collection(NS.Order)`). */
  readonly type: string;
  /** The model's description (`Core.Description`) of a property or navigation property. */
  readonly description?: string;
  /** A function's overload that matched its arguments, as text (`contains(Edm.String, Edm.String): Edm.Boolean`). */
  readonly signature?: string;
  /** Every overload of a function, as text. */
  readonly overloads?: readonly string[];
}

/**
 * What is under `offset` in the query string `text`, bound with `settings`: `undefined` where
 * nothing is (white space, an option's name) or where the query does not bind (see `validateQuery`
 * for why). Never throws.
 *
 * @example
 * ```ts
 * describeQuery("$filter=Name eq 'x'", 9, { model, entitySet: 'Products' });
 * // { range: { start: 8, end: 12 }, kind: 'property', label: 'Name', type: 'Edm.String' }
 * ```
 */
export function describeQuery(text: string, offset: number, settings: BindSettings): QueryDescription | undefined {
  try {
    return describe(text, offset, settings);
  } catch {
    return undefined;
  }
}

function describe(text: string, offset: number, settings: BindSettings): QueryDescription | undefined {
  const part = splitQueryString(text).find((p) => p.rawValue !== undefined && p.valueOffset <= offset && offset <= p.valueOffset + p.rawValue.length);
  if (part === undefined) return undefined;
  const option = canonicalOption(part.rawName);
  const bound = bindFor(text, part, option, settings);
  if (bound === undefined) return undefined;
  const at = offset - part.valueOffset;
  const roots = rootsOf(bound, option);
  // The innermost node whose span holds the cursor (at its end too: the cursor right after a name).
  let best: BoundExpression | undefined;
  for (const root of roots) {
    forEachExpression(root, (node) => {
      if (node.span.start <= at && at <= node.span.end && (best === undefined || node.span.end - node.span.start <= best.span.end - best.span.start))
        best = node;
    });
  }
  if (best === undefined) return selectedAt(bound, option, at, part);
  return describeNode(best, at, part.valueOffset);
}

/** The query bound, or (when another option fails) with only the cursor's option and those that give it its scope. */
function bindFor(text: string, part: QueryStringPart, option: string, settings: BindSettings): BoundQuery | undefined {
  try {
    return bindQuery(text, settings);
  } catch {
    const scope = splitQueryString(text).filter(
      (p) => p === part || ((canonicalOption(p.rawName) === 'apply' || canonicalOption(p.rawName) === 'compute') && option !== 'apply'),
    );
    try {
      return bindQuery(scope.map((p) => p.text).join('&'), settings);
    } catch {
      return undefined;
    }
  }
}

/** The expressions of the option the cursor is in (an expansion's are in its `$expand` text). */
function rootsOf(bound: BoundQuery, option: string): BoundExpression[] {
  const roots: BoundExpression[] = [];
  switch (option) {
    case 'filter':
      if (bound.filter !== undefined) roots.push(bound.filter);
      break;
    case 'orderby':
      for (const item of bound.orderBy ?? []) roots.push(item.expression);
      break;
    case 'compute':
      for (const item of bound.compute ?? []) roots.push(item.expression);
      break;
    case 'apply':
      if (bound.apply !== undefined)
        mapTransformationExpressions(bound.apply.transformations, (node) => {
          roots.push(node);
          return node;
        });
      break;
    case 'expand':
      for (const item of bound.expand) collect(item.options, roots);
      break;
    default:
      break;
  }
  return roots;
}

/** Every expression of an expansion's options and of its nested expansions. */
function collect(options: BoundQueryOptions, roots: BoundExpression[]): void {
  mapQueryExpressions(options, (node) => {
    roots.push(node);
    return node;
  });
}

/** The model's description (`Core.Description`) of a member, if its CSDL has one. */
export function descriptionOf(member: Property | NavigationProperty): string | undefined {
  const csdl = (member as { readonly csdl?: Readonly<Record<string, unknown>> }).csdl;
  const value = csdl?.['@Core.Description'] ?? csdl?.['@Org.OData.Core.V1.Description'];
  return typeof value === 'string' ? value : undefined;
}

function memberDescription(member: Property | NavigationProperty, range: TextRange): QueryDescription {
  const description = descriptionOf(member);
  const type =
    member.kind === 'property'
      ? typeName(fromReference(member.type, member.collection))
      : member.collection
        ? `Collection(${member.target.qualifiedName})`
        : member.target.qualifiedName;
  return { range, kind: member.kind, label: member.name, type, ...(description === undefined ? {} : { description }) };
}

function describeNode(node: BoundExpression, at: number, base: number): QueryDescription {
  const range = (span: { start: number; end: number }): TextRange => ({ start: base + span.start, end: base + span.end });
  const type = typeName(node.type);
  switch (node.kind) {
    case 'path': {
      for (const step of node.steps) {
        if (step.span.start <= at && at <= step.span.end) {
          if (step.kind === 'property') return memberDescription(step.property, range(step.span));
          if (step.kind === 'navigation') return memberDescription(step.navigation, range(step.span));
          if (step.kind === 'dynamic') return { range: range(step.span), kind: 'property', label: step.name, type: 'Edm.Untyped' };
        }
      }
      if (node.root.kind === 'variable') {
        return {
          range: range({ start: node.span.start, end: node.steps[0]?.span.start ?? node.span.end }),
          kind: 'variable',
          label: node.root.name,
          type: typeName(node.root.elementType),
        };
      }
      return { range: range(node.span), kind: 'expression', label: 'path', type };
    }
    case 'literal':
      return { range: range(node.span), kind: 'literal', label: node.value === null ? 'null' : String(node.value), type };
    case 'call': {
      const texts = overloadTexts(node.name).map((o) => `${node.name}(${o.parameters.join(', ')}): ${o.result}`);
      const matched = matchedOverloadIndex(
        node.name,
        node.args.map((arg) => arg.type),
      );
      return {
        range: range({ start: node.span.start, end: node.span.start + node.name.length }),
        kind: 'function',
        label: node.name,
        type,
        ...(matched >= 0 ? { signature: texts[matched] as string } : {}),
        ...(texts.length > 0 ? { overloads: texts } : {}),
      };
    }
    case 'binary':
      return {
        range: range(node.span),
        kind: 'operator',
        label: node.operator,
        type,
        signature: `${typeName(node.operandType)} ${node.operator} ${typeName(node.operandType)}: ${type}`,
      };
    case 'unary':
      return { range: range(node.span), kind: 'operator', label: node.operator, type };
    case 'in':
      return { range: range(node.span), kind: 'operator', label: 'in', type };
    case 'lambda':
      return { range: range(node.span), kind: 'lambda', label: node.operator, type };
    case 'count':
      return { range: range(node.span), kind: 'count', label: '$count', type };
    default:
      return { range: range(node.span), kind: 'expression', label: node.kind, type };
  }
}

/** A `$select` item under the cursor: the property it selects. */
function selectedAt(bound: BoundQuery, option: string, at: number, part: QueryStringPart): QueryDescription | undefined {
  if (option !== 'select' || bound.select === undefined) return undefined;
  for (const item of bound.select.properties) {
    if (item.span.start <= at && at <= item.span.end) {
      const last = item.path[item.path.length - 1];
      if (last !== undefined) return memberDescription(last, { start: part.valueOffset + item.span.start, end: part.valueOffset + item.span.end });
    }
  }
  return undefined;
}
