/**
 * Binding a custom transformation of `$apply` (Data Aggregation 4.0, 7.7): a service-defined
 * function bound to the current collection, `Self.TopCountAndRemainder(Count=1,Property='Total')`,
 * which the grammar gives as an `other` transformation (its name and argument text). The host
 * defines it in `BindSettings.customTransformations` (custom-transformation-settings.ts); one it
 * does not define is refused with `unsupported_feature`. The arguments are parsed as a function
 * call's named parameters and must each be a literal (or a parameter alias of one) of the declared
 * type. Its rows have the input's type, with properties possibly absent (not entities of a set).
 */
import { ODataError, type ODataErrorCode } from '../../errors/odata-error.js';
import type { ApplyTransformation, Expression, PathSegment, Span } from '../../syntax/ast.js';
import { parseFilter } from '../../syntax/parse.js';
import type { BoundLiteral, BoundTransformation } from '../bound-ast.js';
import { isIntegerType, isNumeric, isPrimitive, typeName } from '../types.js';
import type { PrimitiveTypeName } from '../../model/model.js';
import type { Input } from './apply-context.js';
import type { ExpressionBinder } from '../bind-expression.js';
import type { CustomTransformations } from './custom-transformation-settings.js';

type Other = Extract<ApplyTransformation, { kind: 'other' }>;

/** What binding a custom transformation needs of the apply binder. */
export interface CustomTransformationBinder {
  readonly option: string;
  readonly definitions: CustomTransformations | undefined;
  expressions(input: Input): ExpressionBinder;
  fail(code: ODataErrorCode, reason: string, span: Span | undefined): never;
  unsupported(what: string, span: Span): never;
}

/** The custom transformation `node` over rows of `input`, and the rows it gives. */
export function bindCustomTransformation(node: Other, input: Input, binder: CustomTransformationBinder): [BoundTransformation, Input] {
  const definition = binder.definitions !== undefined && Object.hasOwn(binder.definitions, node.name) ? binder.definitions[node.name] : undefined;
  if (definition === undefined) return binder.unsupported(`The transformation '${node.name}'`, node.span);
  const args = argumentsOf(node, binder);
  const parameters = definition.parameters ?? {};
  const values: Record<string, BoundLiteral['value']> = {};
  for (const [name, value] of args) {
    const declared = Object.hasOwn(parameters, name) ? parameters[name] : undefined;
    if (declared === undefined) binder.fail('invalid_option_value', `The transformation '${node.name}' has no parameter '${name}'`, value.span);
    const bound = binder.expressions(input).bind(value, false);
    if (bound.kind !== 'literal') binder.fail('invalid_option_value', `The parameter '${name}' of '${node.name}' must be a literal`, value.span);
    const converted = bound.type.kind === 'null' ? null : convert(bound, declared);
    if (converted === undefined)
      binder.fail(
        'type_mismatch',
        `The parameter '${name}' of '${node.name}' is of type '${declared}', given the value ${JSON.stringify(String(bound.value))} of type '${typeName(bound.type)}'`,
        value.span,
      );
    values[name] = converted;
  }
  for (const name of Object.keys(parameters))
    if (!Object.hasOwn(values, name)) binder.fail('invalid_option_value', `The transformation '${node.name}' needs the parameter '${name}'`, node.span);
  const output = input.type;
  return [
    { kind: 'custom', name: node.name, args: values, definition, output, span: node.span },
    { type: output, set: undefined, capabilities: undefined, entity: false },
  ];
}

/** The ranges of the integer types below Int64. */
const INTEGER_RANGE: Readonly<Record<string, readonly [number, number]>> = {
  'Edm.Byte': [0, 255],
  'Edm.SByte': [-128, 127],
  'Edm.Int16': [-32768, 32767],
  'Edm.Int32': [-2147483648, 2147483647],
};

/** A literal as a value of the declared type in storage form (Int64 a `bigint`, Decimal its text), or undefined where it is none. */
function convert(literal: BoundLiteral, declared: PrimitiveTypeName): BoundLiteral['value'] | undefined {
  const value = literal.value;
  const integer = isIntegerType(literal.type);
  const range = INTEGER_RANGE[declared];
  if (range !== undefined) return integer && Number(value) >= range[0] && Number(value) <= range[1] ? Number(value) : undefined;
  if (declared === 'Edm.Int64') return integer ? BigInt(value as number | bigint) : undefined;
  if (declared === 'Edm.Decimal') return integer || isPrimitive(literal.type, 'Edm.Decimal') ? String(value) : undefined;
  if (declared === 'Edm.Double' || declared === 'Edm.Single') return isNumeric(literal.type) ? Number(value) : undefined;
  return typeName(literal.type) === declared ? value : undefined;
}

/** The arguments as written, parsed as a function call's named parameters (`Count=1,Property='Total'`). */
function argumentsOf(node: Other, binder: CustomTransformationBinder): Map<string, Expression> {
  const args = new Map<string, Expression>();
  if (node.text.trim() === '') return args;
  let parsed: Expression;
  try {
    // Padded so that positions are the request's (the name starts the transformation).
    parsed = parseFilter(`${' '.repeat(node.span.start)}${node.name}(${node.text})`);
  } catch (error) {
    if (error instanceof ODataError) binder.fail('invalid_option_value', `The parameters of '${node.name}' are given by name: Name=value`, node.span);
    throw error;
  }
  const segment: PathSegment | undefined = parsed.kind === 'path' && parsed.segments.length === 1 ? parsed.segments[0] : undefined;
  if (segment?.kind !== 'invoke') return binder.fail('invalid_option_value', `The parameters of '${node.name}' are given by name: Name=value`, node.span);
  for (const argument of segment.args) {
    if (argument.name === undefined) binder.fail('invalid_option_value', `The parameters of '${node.name}' are given by name: Name=value`, argument.span);
    if (args.has(argument.name)) binder.fail('invalid_option_value', `The parameter '${argument.name}' is given twice`, argument.span);
    args.set(argument.name, argument.value);
  }
  return args;
}
