/**
 * A hand-written `$filter` parser for the parse bench's inputs (issue 31's baseline): one pass over
 * the characters, no token objects, precedence climbing, building exactly the tree `parseFilter`
 * builds (same node kinds, fields, spans and literal values; the bench checks it on every input).
 * It knows only what the inputs use: names and paths, calls, strings, integers and decimals,
 * parentheses, `not`, the comparison operators, `and` and `or`. It validates nothing else and is
 * not part of the package: it is what "the same tree at the cost of a hand-written parser" costs.
 */

type Node = Record<string, unknown> & { span: { start: number; end: number } };

/** Binding powers of the binary operators (OData's precedence: comparisons, then `and`, then `or`). */
const POWER: Readonly<Record<string, number>> = { or: 1, and: 2, eq: 3, ne: 3, gt: 3, ge: 3, lt: 3, le: 3 };

const isNameStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isNamePart = (c: number): boolean => isNameStart(c) || (c >= 48 && c <= 57);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

class HandParser {
  private at = 0;
  constructor(private readonly text: string) {}

  parse(): Node {
    const node = this.expression(0);
    this.blanks();
    if (this.at !== this.text.length) throw new Error(`unexpected input at ${this.at}`);
    return node;
  }

  private blanks(): void {
    while (this.text.charCodeAt(this.at) === 32) this.at++;
  }

  /** The operator word at the cursor (after blanks), or `undefined`. */
  private operator(): string | undefined {
    const start = this.at;
    let end = start;
    while (isNameStart(this.text.charCodeAt(end))) end++;
    const word = this.text.slice(start, end);
    return POWER[word] === undefined ? undefined : word;
  }

  private expression(min: number): Node {
    let left = this.unary();
    for (;;) {
      const save = this.at;
      this.blanks();
      const op = this.operator();
      const power = op === undefined ? 0 : (POWER[op] as number);
      if (op === undefined || power <= min) {
        this.at = save;
        return left;
      }
      this.at += op.length;
      this.blanks();
      const right = this.expression(power);
      left = { kind: 'binary', operator: op, left, right, span: { start: left.span.start, end: right.span.end } };
    }
  }

  private unary(): Node {
    this.blanks();
    const start = this.at;
    if (this.text.startsWith('not ', start)) {
      this.at += 4;
      const operand = this.unary();
      return { kind: 'unary', operator: 'not', operand, span: { start, end: operand.span.end } };
    }
    return this.primary();
  }

  private primary(): Node {
    const start = this.at;
    const c = this.text.charCodeAt(start);
    if (c === 40) {
      this.at++;
      const inner = this.expression(0);
      this.blanks();
      if (this.text.charCodeAt(this.at) !== 41) throw new Error(`')' expected at ${this.at}`);
      this.at++;
      return inner;
    }
    if (c === 39) return this.string();
    if (isDigit(c) || c === 45) return this.number();
    if (isNameStart(c)) return this.name();
    throw new Error(`unexpected '${this.text.charAt(start)}' at ${start}`);
  }

  private string(): Node {
    const start = this.at;
    let value = '';
    let from = start + 1;
    for (;;) {
      const quote = this.text.indexOf("'", from);
      if (quote < 0) throw new Error('unterminated string');
      value += this.text.slice(from, quote);
      if (this.text.charCodeAt(quote + 1) === 39) {
        value += "'";
        from = quote + 2;
        continue;
      }
      this.at = quote + 1;
      return { kind: 'literal', type: 'Edm.String', value, span: { start, end: this.at } };
    }
  }

  private number(): Node {
    const start = this.at;
    let end = start + 1;
    while (isDigit(this.text.charCodeAt(end))) end++;
    if (this.text.charCodeAt(end) === 46) {
      end++;
      while (isDigit(this.text.charCodeAt(end))) end++;
      this.at = end;
      return { kind: 'literal', type: 'Edm.Decimal', value: this.text.slice(start, end), span: { start, end } };
    }
    this.at = end;
    const value = Number(this.text.slice(start, end));
    return value >= -2147483648 && value <= 2147483647
      ? { kind: 'literal', type: 'Edm.Int32', value, span: { start, end } }
      : { kind: 'literal', type: 'Edm.Int64', value: BigInt(this.text.slice(start, end)), span: { start, end } };
  }

  private identifier(): { name: string; span: { start: number; end: number } } {
    const start = this.at;
    let end = start;
    while (isNamePart(this.text.charCodeAt(end))) end++;
    this.at = end;
    return { name: this.text.slice(start, end), span: { start, end } };
  }

  private name(): Node {
    const first = this.identifier();
    if (this.text.charCodeAt(this.at) === 40) {
      this.at++;
      const args: Node[] = [];
      this.blanks();
      if (this.text.charCodeAt(this.at) !== 41) {
        for (;;) {
          args.push(this.expression(0));
          this.blanks();
          if (this.text.charCodeAt(this.at) !== 44) break;
          this.at++;
          this.blanks();
        }
      }
      if (this.text.charCodeAt(this.at) !== 41) throw new Error(`')' expected at ${this.at}`);
      this.at++;
      return { kind: 'call', name: first.name, args, span: { start: first.span.start, end: this.at } };
    }
    const segments: Node[] = [{ kind: 'member', name: first.name, span: first.span }];
    while (this.text.charCodeAt(this.at) === 47) {
      this.at++;
      const next = this.identifier();
      segments.push({ kind: 'member', name: next.name, span: next.span });
    }
    return { kind: 'path', head: { kind: 'implicit' }, segments, span: { start: first.span.start, end: this.at } };
  }
}

/** Parses a `$filter` of the bench's inputs into the tree `parseFilter` gives. */
export function handParseFilter(text: string): unknown {
  return new HandParser(text).parse();
}
