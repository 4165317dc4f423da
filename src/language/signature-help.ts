/**
 * `signatureHelp`: inside the parentheses of a canonical function call, its overloads with the
 * argument at the cursor; inside `any(…)`/`all(…)`, the lambda's form.
 */
import { FUNCTIONS, overloadTexts } from '../semantic/functions.js';
import { locateCursor } from './cursor.js';

/** One signature: its text and its parameters' (for highlighting the active one). */
export interface Signature {
  /** `substring(Edm.String, Edm.Int32): Edm.String`. */
  readonly label: string;
  readonly parameters: readonly { readonly label: string }[];
}

/** The signatures of the call at the cursor, the one that fits the arguments so far, and the argument the cursor is in. */
export interface SignatureHelp {
  readonly signatures: readonly Signature[];
  /** The first signature with a parameter at the cursor's argument. */
  readonly activeSignature: number;
  /** The argument the cursor is in (0-based). */
  readonly activeParameter: number;
}

const LAMBDAS: Readonly<Record<string, Signature>> = {
  any: { label: 'any(variable: Edm.Boolean): Edm.Boolean', parameters: [{ label: 'variable: Edm.Boolean' }] },
  all: { label: 'all(variable: Edm.Boolean): Edm.Boolean', parameters: [{ label: 'variable: Edm.Boolean' }] },
};

/**
 * The signature help at `offset` of the query string `text`: `undefined` outside the arguments of
 * a canonical function, `any` or `all`. Never throws.
 *
 * @example
 * ```ts
 * signatureHelp("$filter=substring(Name,", 23);
 * // { signatures: [{ label: 'substring(Edm.String, Edm.Int32): Edm.String', … }, …], activeSignature: 0, activeParameter: 1 }
 * ```
 */
export function signatureHelp(text: string, offset: number): SignatureHelp | undefined {
  try {
    const cursor = locateCursor(text, offset);
    if (cursor === undefined || cursor.at !== 'value' || cursor.call === undefined) return undefined;
    const { name, argument } = cursor.call;
    const lambda = LAMBDAS[name];
    if (lambda !== undefined) return { signatures: [lambda], activeSignature: 0, activeParameter: 0 };
    if (!Object.hasOwn(FUNCTIONS, name)) return undefined;
    const texts = overloadTexts(name);
    const signatures: Signature[] =
      texts.length > 0
        ? texts.map((overload) => ({
            label: `${name}(${overload.parameters.join(', ')}): ${overload.result}`,
            parameters: overload.parameters.map((label) => ({ label })),
          }))
        : // cast and isof: an optional value, then a type name.
          [
            { label: `${name}(type)`, parameters: [{ label: 'type' }] },
            { label: `${name}(value, type)`, parameters: [{ label: 'value' }, { label: 'type' }] },
          ];
    const active = signatures.findIndex((signature) => signature.parameters.length > argument);
    return { signatures, activeSignature: Math.max(0, active), activeParameter: argument };
  } catch {
    return undefined;
  }
}
