/**
 * The printer: AST back to canonical query text. Canonical means lower-case operators and
 * function names, `$`-prefixed option names in a fixed order, no redundant parentheses and no
 * optional white space. For every AST the parser can produce, `parse(print(ast))` gives the
 * same AST again (spans aside).
 */
import type {
  AggregateItem,
  AggregateMethod,
  ApplyTransformation,
  NestItem,
  ComputeItem,
  ExpandItem,
  Expression,
  HierarchyReference,
  ItemPathSegment,
  Literal,
  NestedOptions,
  ODataQuery,
  OrderByItem,
  PathHead,
  PathSegment,
  QueryOptions,
  SearchExpression,
  SegmentArgument,
  SelectItem,
  TypeName,
} from './ast.js';
import { PRECEDENCE } from './precedence.js';

/** Binding strength of an expression's outermost operator; primaries bind tightest. */
function strength(node: Expression): number {
  switch (node.kind) {
    case 'binary':
      return PRECEDENCE[node.operator];
    case 'in':
      return PRECEDENCE.has;
    case 'unary':
      return 7;
    default:
      return 10;
  }
}

function printDouble(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'INF';
  if (value === -Infinity) return '-INF';
  if (Object.is(value, -0)) return '-0e+0';
  // Always with an exponent, so that it is read back as a Double and not as a Decimal or an integer.
  return value.toExponential();
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Prints a literal; inside JSON arrays and objects strings are printed as JSON strings. */
export function printLiteral(node: Literal, json = false): string {
  switch (node.type) {
    case 'null':
      return 'null';
    case 'Edm.Boolean':
      return node.value ? 'true' : 'false';
    case 'Edm.Int32':
      return String(node.value);
    case 'Edm.Int64':
      return node.value.toString();
    case 'Edm.Decimal':
      return node.value;
    case 'Edm.Double':
      return printDouble(node.value);
    case 'Edm.String':
      return json ? JSON.stringify(node.value) : quote(node.value);
    case 'Edm.Guid':
    case 'Edm.Date':
    case 'Edm.DateTimeOffset':
    case 'Edm.TimeOfDay':
      return node.value;
    case 'Edm.Duration':
      return `duration${quote(node.value)}`;
    case 'Edm.Binary':
      return `binary${quote(node.value)}`;
    case 'Edm.Geography':
      return `geography${quote(node.value)}`;
    case 'Edm.Geometry':
      return `geometry${quote(node.value)}`;
    case 'enum':
      return `${node.enumType}${quote(node.value.join(','))}`;
  }
}

/** `a:b`, with spaces where `12:30` would otherwise be read as a time of day. */
function joinWithColon(left: string, right: string): string {
  return /\d\d$/.test(left) && /^\d\d/.test(right) ? `${left} : ${right}` : `${left}:${right}`;
}

function wrap(node: Expression, parenthesize: boolean): string {
  const text = printExpression(node);
  return parenthesize ? `(${text})` : text;
}

function printTypeName(node: TypeName): string {
  return node.collection ? `Collection(${node.name})` : node.name;
}

function printJsonValue(node: Expression): string {
  return node.kind === 'literal' ? printLiteral(node, true) : printExpression(node);
}

function printArgument(arg: SegmentArgument): string {
  return arg.name === undefined ? printExpression(arg.value) : `${arg.name}=${printExpression(arg.value)}`;
}

function printHead(head: PathHead): string {
  switch (head.kind) {
    case 'implicit':
      return '';
    case 'alias':
      return `@${head.name}`;
    default:
      return head.kind;
  }
}

function printSegment(segment: PathSegment): string {
  switch (segment.kind) {
    case 'member':
      return segment.name;
    case 'invoke':
      return `${segment.name}(${segment.args.map(printArgument).join(',')})`;
    case 'annotation':
      return `@${segment.term}`;
    case 'count': {
      const options: string[] = [];
      if (segment.filter !== undefined) options.push(`$filter=${printExpression(segment.filter)}`);
      if (segment.search !== undefined) options.push(`$search=${printSearch(segment.search)}`);
      return options.length === 0 ? '$count' : `$count(${options.join(';')})`;
    }
    case 'filter':
      return `$filter(${printExpression(segment.predicate)})`;
    case 'aggregate':
      return `aggregate(${printAggregateItem(segment.item)})`;
    case 'lambda':
      return segment.variable === undefined || segment.predicate === undefined
        ? `${segment.operator}()`
        : `${segment.operator}(${joinWithColon(segment.variable, printExpression(segment.predicate))})`;
  }
}

/**
 * Prints an expression as canonical `$filter`/`$orderby` text.
 * @example printExpression(parseFilter("Name  EQ 'x'")) // "Name eq 'x'"
 */
export function printExpression(node: Expression): string {
  switch (node.kind) {
    case 'literal':
      return printLiteral(node);
    case 'binary': {
      const own = PRECEDENCE[node.operator];
      if (node.operator === 'has') {
        return `${wrap(node.left, strength(node.left) < own)} has ${wrap(node.right, strength(node.right) < 10)}`;
      }
      return `${wrap(node.left, strength(node.left) < own)} ${node.operator} ${wrap(node.right, strength(node.right) <= own)}`;
    }
    case 'in': {
      const right =
        node.right.kind === 'list' || node.right.kind === 'array' || strength(node.right) === 10
          ? printExpression(node.right)
          : `(${printExpression(node.right)})`;
      return `${wrap(node.left, strength(node.left) < PRECEDENCE.has)} in ${right}`;
    }
    case 'list':
      return `(${node.items.map((item) => printLiteral(item)).join(',')})`;
    case 'unary': {
      const operand = wrap(node.operand, strength(node.operand) < 7);
      if (node.operator === 'not') return `not ${operand}`;
      // `-5` would be read back as the literal -5, `-INF` as a literal: keep negation visible.
      return /^[0-9I]/.test(operand) ? `- ${operand}` : `-${operand}`;
    }
    case 'call':
      return `${node.name}(${node.args.map((arg) => (arg.kind === 'typeName' ? printTypeName(arg) : printExpression(arg))).join(',')})`;
    case 'case':
      return `case(${node.branches.map((branch) => joinWithColon(printExpression(branch.when), printExpression(branch.then))).join(',')})`;
    case 'alias':
      return `@${node.name}`;
    case 'array':
      return `[${node.items.map(printJsonValue).join(',')}]`;
    case 'object':
      return `{${node.members.map((member) => `${JSON.stringify(member.name)}:${printJsonValue(member.value)}`).join(',')}}`;
    case 'path': {
      const head = printHead(node.head);
      const segments = node.segments.map(printSegment).join('/');
      return head === '' ? segments : segments === '' ? head : `${head}/${segments}`;
    }
  }
}

const SEARCH_STRENGTH = { OR: 1, AND: 2 } as const;

function searchStrength(node: SearchExpression): number {
  return node.kind === 'searchBinary' ? SEARCH_STRENGTH[node.operator] : node.kind === 'searchNot' ? 3 : 4;
}

/** Prints a `$search` expression. */
export function printSearch(node: SearchExpression): string {
  switch (node.kind) {
    case 'searchText':
      return node.text;
    case 'searchTerm':
      if (!node.phrase) return node.value;
      // The 4.01 ABNF has no escape for '"' inside a phrase: use the single-quoted form then.
      return node.value.includes('"') ? quote(node.value) : `"${node.value}"`;
    case 'searchNot': {
      const operand = printSearch(node.operand);
      return searchStrength(node.operand) < 3 ? `NOT (${operand})` : `NOT ${operand}`;
    }
    case 'searchBinary': {
      const own = SEARCH_STRENGTH[node.operator];
      const left = searchStrength(node.left) < own ? `(${printSearch(node.left)})` : printSearch(node.left);
      const right = searchStrength(node.right) <= own ? `(${printSearch(node.right)})` : printSearch(node.right);
      return `${left} ${node.operator} ${right}`;
    }
  }
}

/** Prints `$orderby` items. */
export function printOrderBy(items: readonly OrderByItem[]): string {
  return items.map((item) => `${printExpression(item.expression)}${item.direction === 'desc' ? ' desc' : ''}`).join(',');
}

function printItemPath(path: readonly ItemPathSegment[]): string[] {
  return path.map((segment) => (segment.kind === 'member' ? segment.name : `@${segment.term}`));
}

/** Prints `$select` items. */
export function printSelect(items: readonly SelectItem[]): string {
  return items
    .map((item) => {
      const parts = printItemPath(item.path);
      if (item.star === '*') parts.push('*');
      else if (item.star !== undefined) parts.push(`${item.star.namespace}.*`);
      let text = parts.join('/');
      if (item.parameters !== undefined) text += `(${item.parameters.join(',')})`;
      if (item.options !== undefined) text += printNestedOptions(item.options);
      return text;
    })
    .join(',');
}

/** Prints `$expand` items. */
export function printExpand(items: readonly ExpandItem[]): string {
  return items
    .map((item) => {
      const parts = printItemPath(item.path);
      if (item.target !== undefined) parts.push(item.target);
      if (item.suffix !== undefined) parts.push(item.suffix);
      let text = parts.join('/');
      if (item.options !== undefined) text += printNestedOptions(item.options);
      return text;
    })
    .join(',');
}

/** Prints `$compute` items. */
export function printCompute(items: readonly ComputeItem[]): string {
  return items.map((item) => `${printExpression(item.expression)} as ${item.alias}`).join(',');
}

function printMethod(method: AggregateMethod): string {
  return typeof method === 'string' ? method : method.custom;
}

function printPath(path: Expression | undefined): string {
  return path === undefined ? '' : printExpression(path);
}

function printAggregateItem(item: AggregateItem): string {
  let text: string;
  if (item.count === true) text = item.expression === undefined ? '$count' : `${printPath(item.expression)}/$count`;
  else if (item.custom !== undefined) text = item.expression === undefined ? item.custom : `${printPath(item.expression)}/${item.custom}`;
  else text = printExpression(item.expression as Expression);
  if (item.method !== undefined) text += ` with ${printMethod(item.method)}`;
  for (const step of item.from ?? []) {
    text += ` from ${step.properties.map((property) => printExpression(property)).join(',')}`;
    if (step.method !== undefined) text += ` with ${printMethod(step.method)}`;
  }
  if (item.alias !== undefined) text += ` as ${item.alias}`;
  return text;
}

/** `$root/Set,Qualifier,path` of a hierarchical transformation. */
function printHierarchy(reference: HierarchyReference): string {
  return `${printExpression(reference.nodes)},${reference.qualifier.name},${printExpression(reference.path)}`;
}

function printTransformation(step: ApplyTransformation): string {
  switch (step.kind) {
    case 'aggregate':
      return `aggregate(${step.items.map(printAggregateItem).join(',')})`;
    case 'groupby': {
      const properties = step.properties.map((property) =>
        property.kind === 'rollup' ? `${property.recursive ? 'rolluprecursive' : 'rollup'}(${property.text})` : printExpression(property),
      );
      return `groupby((${properties.join(',')})${step.apply.length === 0 ? '' : `,${printApply(step.apply)}`})`;
    }
    case 'filter':
      return `filter(${printExpression(step.expression)})`;
    case 'compute':
      return `compute(${printCompute(step.items)})`;
    case 'orderby':
      return `orderby(${printOrderBy(step.items)})`;
    case 'top':
    case 'skip':
      return `${step.kind}(${String(step.count)})`;
    case 'search':
      return `search(${printSearch(step.search)})`;
    case 'identity':
      return 'identity';
    case 'concat':
      return `concat(${step.branches.map(printApply).join(',')})`;
    case 'join':
    case 'outerjoin':
      return `${step.kind}(${printExpression(step.path)} as ${step.alias}${step.apply.length === 0 ? '' : `,${printApply(step.apply)}`})`;
    case 'nest':
      return `nest(${printNestItems(step.items)})`;
    case 'addnested':
      return `addnested(${printExpression(step.path)},${printNestItems(step.items)})`;
    case 'ancestors':
    case 'descendants': {
      const tail = `${step.distance === undefined ? '' : `,${String(step.distance)}`}${step.keepStart ? ',keep start' : ''}`;
      return `${step.kind}(${printHierarchy(step.hierarchy)},${printApply(step.apply)}${tail})`;
    }
    case 'traverse': {
      const apply = step.apply.length === 0 ? '' : `,${printApply(step.apply)}`;
      const orderBy = step.orderBy.length === 0 ? '' : `,${printOrderBy(step.orderBy)}`;
      return `traverse(${printHierarchy(step.hierarchy)},${step.order}${apply}${orderBy})`;
    }
    case 'other':
      return `${step.name}(${step.text})`;
    default:
      // The ranking transformations (topcount … bottomsum): name(limit,value).
      return `${step.kind}(${printExpression(step.limit)},${printExpression(step.value)})`;
  }
}

function printNestItems(items: readonly NestItem[]): string {
  return items.map((item) => `${printApply(item.apply)} as ${item.alias}`).join(',');
}

/** Prints `$apply` transformations. */
export function printApply(steps: readonly ApplyTransformation[]): string {
  return steps.map(printTransformation).join('/');
}

/** `[name, value]` pairs of the options present, in canonical order. */
function optionPairs(options: QueryOptions): [string, string][] {
  const pairs: [string, string][] = [];
  if (options.filter !== undefined) pairs.push(['$filter', printExpression(options.filter)]);
  if (options.search !== undefined) pairs.push(['$search', printSearch(options.search)]);
  if (options.orderBy !== undefined) pairs.push(['$orderby', printOrderBy(options.orderBy)]);
  if (options.select !== undefined) pairs.push(['$select', printSelect(options.select)]);
  if (options.expand !== undefined) pairs.push(['$expand', printExpand(options.expand)]);
  if (options.compute !== undefined) pairs.push(['$compute', printCompute(options.compute)]);
  if (options.apply !== undefined) pairs.push(['$apply', printApply(options.apply)]);
  if (options.top !== undefined) pairs.push(['$top', String(options.top)]);
  if (options.skip !== undefined) pairs.push(['$skip', String(options.skip)]);
  if (options.count !== undefined) pairs.push(['$count', String(options.count)]);
  if (options.levels !== undefined) pairs.push(['$levels', String(options.levels)]);
  if (options.aliases !== undefined) {
    for (const name of Object.keys(options.aliases)) {
      pairs.push([`@${name}`, printJsonValue(options.aliases[name] as Expression)]);
    }
  }
  return pairs;
}

function printNestedOptions(options: NestedOptions): string {
  return `(${optionPairs(options)
    .map(([name, value]) => `${name}=${value}`)
    .join(';')})`;
}

/** Percent-encodes only what would break splitting the query string: `%`, `&`, `#`. */
function encodeValue(text: string): string {
  return text.replace(/[%&#]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * Prints a whole query as a canonical query string (without leading `?`). Values keep spaces
 * and quotes readable; only `%`, `&` and `#` are percent-encoded, so the result is what
 * {@link parseQuery} reads back.
 */
export function printQuery(query: ODataQuery): string {
  const pairs = optionPairs(query);
  for (const [table, entries] of [query.passthrough, query.custom].entries()) {
    if (entries === undefined) continue;
    for (const name of Object.keys(entries)) {
      pairs.push([table === 0 ? name : encodeValue(name), entries[name] as string]);
    }
  }
  // A top-level $search must not contain a raw ';' (ABNF searchChar): encode it there.
  return pairs.map(([name, value]) => `${name}=${name === '$search' ? encodeValue(value).replaceAll(';', '%3B') : encodeValue(value)}`).join('&');
}
