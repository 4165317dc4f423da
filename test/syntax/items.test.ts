import { describe, expect, it } from 'vitest';
import { parseExpand, parseFilter, parseSearch, parseSelect, printExpression } from '../../src/index.js';
import { tree, withoutSpans } from '../helpers/tree.js';

describe('$select', () => {
  it('*', () => expect(withoutSpans(parseSelect('*'))).toEqual([{ kind: 'selectItem', path: [], star: '*' }]));
  it('Name,Address/City,Model.*', () => {
    expect(withoutSpans(parseSelect('Name,Address/City,Model.*'))).toEqual([
      { kind: 'selectItem', path: [{ kind: 'member', name: 'Name' }] },
      {
        kind: 'selectItem',
        path: [
          { kind: 'member', name: 'Address' },
          { kind: 'member', name: 'City' },
        ],
      },
      { kind: 'selectItem', path: [], star: { namespace: 'Model' } },
    ]);
  });
  it("Addresses($filter=startswith(City,'H');$top=5;$orderby=City)", () => {
    const [item] = parseSelect("Addresses($filter=startswith(City,'H');$top=5;$orderby=City)");
    expect(item?.options?.top).toBe(5);
    expect(tree(item!.options!.filter!)).toBe("startswith(City, 'H')");
  });
  it('Address/@Core.Messages', () => {
    expect(withoutSpans(parseSelect('Address/@Core.Messages'))[0]?.path).toEqual([
      { kind: 'member', name: 'Address' },
      { kind: 'annotation', term: 'Core.Messages' },
    ]);
  });
  it('id,name,locality (an expanded navigation property listed in $select)', () => {
    expect(parseSelect('id,name,locality').map((item) => item.path[0])).toMatchObject([{ name: 'id' }, { name: 'name' }, { name: 'locality' }]);
  });
});

describe('$expand', () => {
  it('*,Items/$ref,Items/$count,$value', () => {
    expect(withoutSpans(parseExpand('*,Items/$ref,Items/$count,$value'))).toEqual([
      { kind: 'expandItem', path: [], target: '*' },
      { kind: 'expandItem', path: [{ kind: 'member', name: 'Items' }], suffix: '$ref' },
      { kind: 'expandItem', path: [{ kind: 'member', name: 'Items' }], suffix: '$count' },
      { kind: 'expandItem', path: [], target: '$value' },
    ]);
  });
  it('Items($filter=Qty gt 1;$orderby=Qty desc;$top=2;$skip=1;$count=true;$select=Qty;$expand=Product($levels=max);$search=blue)', () => {
    const [item] = parseExpand('Items($filter=Qty gt 1;$orderby=Qty desc;$top=2;$skip=1;$count=true;$select=Qty;$expand=Product($levels=max);$search=blue)');
    const options = item!.options!;
    expect(tree(options.filter!)).toBe('(Qty gt 1)');
    expect(options.orderBy?.[0]?.direction).toBe('desc');
    expect(options).toMatchObject({ top: 2, skip: 1, count: true, search: { kind: 'searchText', text: 'blue' } });
    expect(options.expand?.[0]?.options?.levels).toBe('max');
  });
  it('expand=Customer,Items(expand=Product;levels=4) without $', () => {
    const items = parseExpand('Customer,Items(expand=Product;levels=4)');
    expect(items[1]?.options).toMatchObject({ levels: 4, expand: [{ path: [{ name: 'Product' }] }] });
  });
  it("Manager($search='gr(een';$top=1) keeps the search value whole", () => {
    const [item] = parseExpand("Manager($search='gr(een';$top=1)");
    expect(item?.options).toMatchObject({ search: { kind: 'searchText', text: "'gr(een'" }, top: 1 });
  });
  it('Manager($search=(green OR blue) NOT red) in grammar mode', () => {
    const [item] = parseExpand('Manager($search=(green OR blue) NOT red)', { search: 'grammar' });
    expect(item?.options?.search).toMatchObject({ kind: 'searchBinary', operator: 'AND', right: { kind: 'searchNot' } });
  });
  it('spans point into the $expand text', () => {
    const [item] = parseExpand("Items($filter=Name eq 'x')");
    expect(item?.options?.filter?.span).toEqual({ start: 14, end: 25 });
  });
});

describe('$search grammar (URL 5.1.8.1)', () => {
  const grammar = { search: 'grammar' } as const;
  const cases: [string, string][] = [
    ['blue green', '(blue AND green)'],
    ['blue OR green', '(blue OR green)'],
    ['foo AND bar OR foo AND baz', '((foo AND bar) OR (foo AND baz))'],
    ['NOT blue', '(NOT blue)'],
    ['NOT (blue green)', '(NOT (blue AND green))'],
    ['"blue green"', '"blue green"'],
    ['AND', 'AND'],
    ['NOT NOT', '(NOT NOT)'],
    ['AND OR NOT', '(AND OR NOT)'],
  ];
  const show = (node: ReturnType<typeof parseSearch>): string => {
    switch (node.kind) {
      case 'searchBinary':
        return `(${show(node.left)} ${node.operator} ${show(node.right)})`;
      case 'searchNot':
        return `(NOT ${show(node.operand)})`;
      case 'searchTerm':
        return node.phrase ? `"${node.value}"` : node.value;
      case 'searchText':
        return node.text;
    }
  };
  for (const [input, expected] of cases) {
    it(input, () => {
      expect(show(parseSearch(input, grammar))).toBe(expected);
    });
  }
  it('"blue"green needs a space between terms', () => {
    expect(() => parseSearch('"blue"green', grammar)).toThrow(/space between search terms/);
  });
  it('by default $search is one uninterpreted string', () => {
    expect(parseSearch('blue OR (green')).toMatchObject({ kind: 'searchText', text: 'blue OR (green' });
  });
});

describe('expression forms', () => {
  const cases: [string, string][] = [
    ['Products/any(p:p/Price gt 5)', 'Products/any(p:p/Price gt 5)'],
    ['Products/ANY(p:p/Price gt 5)', 'Products/any(p:p/Price gt 5)'],
    ['Tags/any()', 'Tags/any()'],
    ['Products/$count gt 0', 'Products/$count gt 0'],
    ['Products/$count($filter=Price gt 5;$search=red) gt 2', 'Products/$count($filter=Price gt 5;$search=red) gt 2'],
    ["Addresses/$filter(endswith(Street,'St'))/$count lt 10", "Addresses/$filter(endswith(Street,'St'))/$count lt 10"],
    ['$it/Name eq $this/Name', '$it/Name eq $this/Name'],
    ["$root/Employees('A1245')/LastName eq LastName", "$root/Employees('A1245')/LastName eq LastName"],
    ["Model.ProductsByColor(color='red')/Name eq 'x'", "Model.ProductsByColor(color='red')/Name eq 'x'"],
    ['Address/Model.Derived/City eq 1', 'Address/Model.Derived/City eq 1'],
    ['cast(Price,Edm.Int32) eq 1', 'cast(Price,Edm.Int32) eq 1'],
    ['isof(Model.Customer)', 'isof(Model.Customer)'],
    ['cast(Tags,Collection(Edm.String))', 'cast(Tags,Collection(Edm.String))'],
    ['Name in ("Milk", \'Cheese\')', "Name in ('Milk','Cheese')"],
    ['[FirstName,LastName] in [["John","Doe"],["Jane","Smith"]]', '[FirstName,LastName] in [["John","Doe"],["Jane","Smith"]]'],
    ['Address eq {"Street":"NE 40th","Zip":98052}', 'Address eq {"Street":"NE 40th","Zip":98052}'],
    ['case(X gt 0:1,X lt 0:-1,true:0)', 'case(X gt 0:1,X lt 0:-1,true:0)'],
    ["@Core.Messages/any(m:m/severity eq 'error')", "@Core.Messages/any(m:m/severity eq 'error')"],
    ["Price/@Measures.Currency eq 'EUR'", "Price/@Measures.Currency eq 'EUR'"],
    ["MATCHESPATTERN(Name,'^A.*e$')", "matchesPattern(Name,'^A.*e$')"],
    ['now() gt maxdatetime()', 'now() gt maxdatetime()'],
    ["geo.distance(Loc,geography'SRID=0;Point(1 2)') lt 5", "geo.distance(Loc,geography'SRID=0;Point(1 2)') lt 5"],
  ];
  for (const [input, canonical] of cases) {
    it(input, () => {
      // `Name in ("Milk", …)` is the one JSON-string form outside arrays: rejected, see below.
      if (input.startsWith('Name in ("Milk"')) {
        expect(() => parseFilter(input)).toThrow();
        return;
      }
      expect(printExpression(parseFilter(input))).toBe(canonical);
    });
  }
});
