/**
 * `cast` and `isof` on MongoDB: each class of conversion (passes/cast-classes.ts, shared with the
 * SQL backend) as an aggregation expression, in the subset the reference computes in a way MongoDB
 * can say; the other classes are refused.
 */
import type { BoundCall, BoundExpression } from '../../semantic/bound-ast.js';
import type { ExpressionType } from '../../semantic/types.js';
import { flagValues, membersByValue } from '../../passes/enums.js';
import { classifyCast } from '../../passes/cast-classes.js';

type Aggregation = unknown;
type Call = BoundCall;

/** What a cast needs of the expression compiler. */
export interface MongoCastContext {
  /** The value of an operand. */
  value(node: BoundExpression): Aggregation;
  /** `build` of the values, or null when one of them is null (each value computed once). */
  nullSafe(args: readonly Aggregation[], build: (refs: readonly string[]) => Aggregation): Aggregation;
  /** A fresh `$let` variable name starting with `letter`. */
  letName(letter: string): string;
  /** Whether Guids are stored by a custom function (not as text). */
  readonly customGuid: boolean;
  /** Throws the `unsupported_feature` error for `what` at `node`. */
  fail(what: string, node: { span: { start: number } }): never;
}

const notNull = (x: Aggregation): Aggregation => ({ $ne: [x, null] });

/**
 * `cast` and `isof` by the class of the conversion (passes/cast-classes.ts), in the subset the
 * reference computes in a way MongoDB can say; `isof(Type)` of the instance is true.
 */
export function castOrIsof(node: Call, c: MongoCastContext): Aggregation {
  const [arg] = node.args;
  const target = node.targetType;
  const isof = node.name === 'isof';
  if (isof && arg === undefined) return true;
  if (arg === undefined || target === undefined) return c.fail(`'${node.name}' here`, node);
  const source = arg.type;
  /** `body` of the value bound once, as `ref`. */
  const bound = (letter: string, body: (ref: string) => Aggregation): Aggregation => {
    const name = c.letName(letter);
    return { $let: { vars: { [name]: c.value(arg) }, in: body(`$$${name}`) } };
  };
  const kind = classifyCast(isof ? 'isof' : 'cast', arg, target);
  switch (kind.kind) {
    case 'null':
    case 'never':
      return isof ? false : null;
    case 'finite': {
      // A Double as a Decimal: itself when finite (INF and NaN are no decimals); isof is false (never null) for null.
      const finite = (x: Aggregation): Aggregation => ({ $and: [{ $ne: [x, NaN] }, { $ne: [x, Infinity] }, { $ne: [x, -Infinity] }] });
      if (isof) return bound('i', (x) => ({ $and: [notNull(x), finite(x)] }));
      return c.nullSafe([c.value(arg)], ([x]) => ({ $cond: [finite(x), x, null] }));
    }
    case 'integral': {
      // The value when it is an integer in the type's range (NaN equals itself in MongoDB but is
      // below every number there, and equals nothing in mingo).
      const [lowest, highest] = kind.range;
      return bound('k', (ref) => {
        const within = { $and: [notNull(ref), { $eq: [ref, { $floor: ref }] }, { $gte: [ref, Number(lowest)] }, { $lt: [ref, Number(highest + 1n)] }] };
        return isof ? within : { $cond: [within, ref, null] };
      });
    }
    case 'member': {
      // Stored by name: the member with that value, else null; `isof`: whether there is one.
      const members = membersByValue(kind.type);
      return bound('k', (ref) => {
        const named = { $switch: { branches: members.map(([value, member]) => ({ case: { $eq: [ref, Number(value)] }, then: member })), default: null } };
        return isof ? (members.length === 0 ? false : { $in: [ref, members.map(([value]) => Number(value))] }) : named;
      });
    }
    case 'flags': {
      const { lowest, highest, outside } = flagValues(kind.type);
      return bound('k', (ref) => {
        const inRange = { $and: [{ $gte: [ref, Number(lowest)] }, { $lte: [ref, Number(highest)] }] };
        return { $and: [notNull(ref), outside.length === 0 ? inRange : { $or: [inRange, { $in: [ref, outside.map(Number)] }] }] };
      });
    }
    case 'integer': {
      // Cast to an integer type narrower than Int64: the value when it is in the type's range, else
      // the cast fails (null), as in the reference (`cast(n16 add id,Edm.Int16)`).
      const range = kind.range;
      if (range === undefined) return isof ? notNull(c.value(arg)) : c.value(arg);
      return bound('k', (ref) => {
        const within = { $and: [notNull(ref), { $gte: [ref, Number(range[0])] }, { $lte: [ref, Number(range[1])] }] };
        return isof ? within : { $cond: [within, ref, null] };
      });
    }
    case 'identity':
    case 'float':
    case 'decimal':
      return isof ? notNull(c.value(arg)) : c.value(arg);
    case 'text':
      // A Date or a TimeOfDay is text already (stored, or computed); a Guid stored as text is
      // lowercase text already (a custom `guid` storage is not text: refused).
      if (kind.from === 'date' || kind.from === 'time') return c.value(arg);
      if (kind.from === 'guid') return !c.customGuid ? c.value(arg) : refuseCast(node, source, target, c);
      return c.nullSafe([c.value(arg)], ([x]) => ({ $toString: x }));
    default:
      return refuseCast(node, source, target, c);
  }
}

function refuseCast(node: Call, source: ExpressionType, target: ExpressionType, c: MongoCastContext): never {
  return c.fail(
    `'${node.name}' from ${source.kind === 'primitive' ? source.name : source.kind} to ${target.kind === 'primitive' ? target.name : target.kind}`,
    node,
  );
}
