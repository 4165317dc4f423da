/**
 * The hierarchy functions of the Aggregation vocabulary (Data Aggregation 5.5.2.1) in an
 * expression: `Aggregation.isdescendant(HierarchyNodes=…,HierarchyQualifier='…',Node=…,Ancestor=…)`
 * and its kin, bound to a {@link BoundHierarchyTest}. Registered with the expression binder by the
 * `$apply` binder, which resolves hierarchies the same way (hierarchy-reference.ts).
 */
import type { ODataErrorCode } from '../../errors/odata-error.js';
import type { Expression, PathSegment, Span } from '../../syntax/ast.js';
import type { HierarchyFunctionHost } from '../bind-expression.js';
import type { BoundExpression, BoundHierarchyTest } from '../bound-ast.js';
import { resolveHierarchy } from '../hierarchy-reference.js';
import { BOOLEAN, isNumeric, typeName } from '../types.js';

/** The parameters of each hierarchy function beyond `HierarchyNodes`, `HierarchyQualifier` and `Node`. */
const HIERARCHY_PARAMETERS: Readonly<Record<BoundHierarchyTest['test'], readonly string[]>> = {
  isnode: [],
  isroot: [],
  isleaf: [],
  isdescendant: ['Ancestor', 'MaxDistance', 'IncludeSelf'],
  isancestor: ['Descendant', 'MaxDistance', 'IncludeSelf'],
  issibling: ['Other'],
};

/** A hierarchy function (`Aggregation.isdescendant(HierarchyNodes=…,HierarchyQualifier='…',Node=…,Ancestor=…)`). */
export function bindHierarchyFunction(segment: Extract<PathSegment, { kind: 'invoke' }>, span: Span, host: HierarchyFunctionHost): BoundHierarchyTest {
  const fail = (code: ODataErrorCode, reason: string, at: Span): never => {
    throw host.error(code, reason, at);
  };
  const test = segment.name.slice(segment.name.lastIndexOf('.') + 1) as BoundHierarchyTest['test'];
  const allowed = ['HierarchyNodes', 'HierarchyQualifier', 'Node', ...HIERARCHY_PARAMETERS[test]];
  const args = new Map<string, Expression>();
  for (const argument of segment.args) {
    if (argument.name === undefined || !allowed.includes(argument.name))
      throw host.error('invalid_option_value', `${segment.name} takes the parameters ${allowed.join(', ')} by name`, argument.value.span);
    if (args.has(argument.name)) throw host.error('invalid_option_value', `The parameter '${argument.name}' is given twice`, argument.value.span);
    args.set(argument.name, argument.value);
  }
  const required = (name: string): Expression => args.get(name) ?? fail('invalid_option_value', `${segment.name} needs the parameter '${name}'`, segment.span);
  const nodes = required('HierarchyNodes');
  const qualifier = required('HierarchyQualifier');
  if (qualifier.kind !== 'literal' || typeof qualifier.value !== 'string')
    throw host.error('invalid_option_value', `HierarchyQualifier must be a string literal`, qualifier.span);
  const hierarchy = resolveHierarchy(
    nodes,
    { name: qualifier.value, span: qualifier.span },
    {
      model: host.model,
      fail: (code, reason, at) => fail(code, reason, at ?? span),
      unsupported: (what, at) => fail('unsupported_feature', `${what} is not supported`, at),
      bindOn: (set, path) => host.bindOn(set, path),
    },
  );
  const comparable = (name: string): BoundExpression => {
    const value = host.bind(required(name));
    const want = hierarchy.node.type;
    if (value.type.kind !== 'null' && typeName(value.type) !== typeName(want) && !(isNumeric(value.type) && isNumeric(want)))
      throw host.error(
        'type_mismatch',
        `${name} is of type '${typeName(value.type)}', the hierarchy's node identifiers of type '${typeName(want)}'`,
        required(name).span,
      );
    return value;
  };
  const node = comparable('Node');
  const otherName = HIERARCHY_PARAMETERS[test][0];
  const other = otherName === undefined ? undefined : comparable(otherName);
  const distanceArg = args.get('MaxDistance');
  let distance: number | undefined;
  if (distanceArg !== undefined) {
    const value = distanceArg.kind === 'literal' ? distanceArg.value : undefined;
    if ((typeof value !== 'number' && typeof value !== 'bigint') || Number(value) < 1 || !Number.isInteger(Number(value)))
      throw host.error('invalid_option_value', `MaxDistance must be an integer literal of 1 or more`, distanceArg.span);
    if (Number(value) <= Number.MAX_SAFE_INTEGER) distance = Number(value);
  }
  const selfArg = args.get('IncludeSelf');
  if (selfArg !== undefined && (selfArg.kind !== 'literal' || typeof selfArg.value !== 'boolean'))
    throw host.error('invalid_option_value', `IncludeSelf must be true or false`, selfArg.span);
  const includeSelf = selfArg?.kind === 'literal' && selfArg.value === true;
  return {
    kind: 'hierarchyTest',
    test,
    hierarchy,
    node,
    ...(other === undefined ? {} : { other }),
    ...(distance === undefined ? {} : { distance }),
    includeSelf,
    type: BOOLEAN,
    span,
  };
}
