/**
 * The query language service (src/language/): completion, hover, signature help and quick fixes.
 *
 * - A property test over the query generators: at offsets of generated queries, every item
 *   offered, inserted over its range, gives a text with no syntax error before the end of the
 *   inserted item; and at the start of (and inside) each name of the query (a property, a
 *   navigation property, a function, a keyword, an option), the name itself is offered.
 * - Hand-written cases on the example model and on Microsoft Graph's `users` for each kind.
 * - None of the functions throws, for any text and any offset.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  completeQuery,
  describeQuery,
  modelFromCsdlXml,
  quickFixes,
  signatureHelp,
  validateQuery,
  type BindSettings,
  type Completion,
  type Model,
} from '../../src/index.js';
import { tokenMatcher } from 'chevrotain';
import * as T from '../../src/syntax/lexer.js';
import { lex } from '../../src/syntax/lexer.js';
import { splitQueryString } from '../../src/syntax/query-string.js';
import { applyQueryArbitrary, DYNAMIC_PROPERTY_NAMES, generateModel, modelQueryArbitrary, typedQueryArbitrary } from '../../src/testing/index.js';
import { assetModel } from '../fixtures/asset-model.js';
import { model as serviceModel } from '../../examples/asset-service/src/model.js';

const assets: BindSettings = { model: assetModel, entitySet: 'assets' };

/** The labels offered at the `|` of `query`. */
function offered(query: string, settings: BindSettings = assets): Completion[] {
  const offset = query.indexOf('|');
  return completeQuery(query.replace('|', ''), offset, settings);
}
const labels = (query: string, settings?: BindSettings): string[] => offered(query, settings).map((item) => item.label);

/** Codes of the errors a parse (not a bind) gives. */
const SYNTAX = new Set([
  'syntax_error',
  'invalid_token',
  'unexpected_end',
  'too_deep',
  'invalid_nested_option',
  'malformed_encoding',
  'unknown_option',
  'duplicate_option',
]);

/**
 * The text with `item` inserted over its range, and the end of the inserted text: with the rest of
 * the text kept, and cut at that end (what an aggregate item or a `concat` needs after a word may
 * be in the rest, or may not fit it: either text may show that everything up to the end parses).
 */
function inserted(text: string, item: Completion): { texts: [string, string]; end: number } {
  const end = item.range.start + item.insertText.length;
  const before = `${text.slice(0, item.range.start)}${item.insertText}`;
  return { texts: [`${before}${text.slice(item.range.end)}`, before], end };
}

/** The syntax problems of a text that start before `end`. */
function syntaxBefore(text: string, end: number, settings: BindSettings): string[] {
  return (
    validateQuery(text, settings)
      // (An unexpected end is the end of the input: what came before it parsed. An aggregate item's
      // alias is checked where the item ends, and reported at its start: that error is about the rest.)
      .filter((d) => SYNTAX.has(d.code) && d.code !== 'unexpected_end' && !d.message.startsWith("Expected 'as' and an alias") && d.range.start < end)
      .map((d) => `${d.code} at ${d.range.start}: ${d.message}`)
  );
}

/** The names of a query's values at which a name is offered: each word (an identifier or a `$` name) with its offset. */
function words(text: string): { word: string; offset: number }[] {
  const found: { word: string; offset: number }[] = [];
  for (const part of splitQueryString(text)) {
    found.push({ word: part.rawName, offset: part.offset });
    if (part.rawValue === undefined) continue;
    const tokens = lex(part.rawValue, 'expression').tokens;
    tokens.forEach((token, i) => {
      if (!tokenMatcher(token, T.Identifier) && !tokenMatcher(token, T.DollarName)) return;
      const next = tokens[i + 1];
      const previous = tokens[i - 1];
      // Free names: a lambda variable's declaration, an alias after `as`, a custom aggregate, a type
      // name, a dynamic property of an open type (declared nowhere: nothing to offer it from).
      if (next?.image === ':' || previous?.image === 'as' || token.image.includes('.') || DYNAMIC_PROPERTY_NAMES.includes(token.image)) return;
      if (!/^[A-Za-z_$]/.test(token.image)) return;
      found.push({ word: token.image, offset: part.valueOffset + token.startOffset });
    });
  }
  return found;
}

/**
 * The query as a person types it: each name and value percent-decoded (the generators encode
 * them); `undefined` when a decoded value holds a character that would split the text (`&`, `#`)
 * or a `%` (which the typed text would need encoded).
 */
function asTyped(query: string): string | undefined {
  const parts: string[] = [];
  for (const part of splitQueryString(query)) {
    const name = decodeURIComponent(part.rawName);
    const value = part.rawValue === undefined ? undefined : decodeURIComponent(part.rawValue);
    if (/[&#%]/.test(value ?? '') || /[&#%=]/.test(name)) return undefined;
    parts.push(value === undefined ? name : `${name}=${value}`);
  }
  return parts.join('&');
}

/** Checks a query: items insert without a syntax error before their end; its own names are offered. */
function checkQuery(text: string, settings: BindSettings, problems: string[], everyOffset = false): void {
  const checkInsertions = (at: number, items: readonly Completion[]): void => {
    for (const item of items) {
      const after = inserted(text, item);
      const errors = syntaxBefore(after.texts[0], after.end, settings);
      if (errors.length > 0 && syntaxBefore(after.texts[1], after.end, settings).length > 0)
        problems.push(`${JSON.stringify(text)} at ${at}: inserting '${item.insertText}' gives ${errors.join('; ')}`);
    }
  };
  for (const { word, offset } of words(text)) {
    for (const at of [offset, offset + Math.min(2, word.length)]) {
      const items = completeQuery(text, at, settings);
      const names = items.map((item) => item.insertText.replace(/[=(]$/, '').replace(/\(\)$/, ''));
      if (!names.includes(word) && !items.some((item) => item.label === word)) {
        problems.push(`${JSON.stringify(text)} at ${at}: '${word}' not offered (offered ${names.slice(0, 12).join(' ')})`);
      }
      checkInsertions(at, items.slice(0, 40));
    }
  }
  if (!everyOffset) return;
  // Every other offset too (inside literals, between tokens, at the end): a few items of each kind offered there.
  for (let at = 0; at <= text.length; at++) {
    const items = completeQuery(text, at, settings);
    const sample = [...new Map(items.map((item) => [item.kind, item])).values()];
    checkInsertions(at, sample);
  }
}

/** Whether `bindQuery`-level validity holds (the property checks valid generated queries). */
const isValid = (text: string, settings: BindSettings): boolean => validateQuery(text, settings).length === 0;

describe('completeQuery: a property test over the query generators', () => {
  it('on the example model: items insert cleanly, and the query’s own names are offered', () => {
    const problems: string[] = [];
    const texts = fc.sample(modelQueryArbitrary(assetModel, 'assets'), { seed: 32, numRuns: 60 });
    let checked = 0;
    for (const encoded of texts) {
      const text = asTyped(encoded);
      if (text === undefined || !isValid(text, assets)) continue;
      // Every offset of the first twenty; the names of all.
      checkQuery(text, assets, problems, checked < 20);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
    expect(problems.slice(0, 10)).toEqual([]);
  });

  it('on generated models: typed filters and $apply pipelines', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const seed of [3201, 3202]) {
      const model: Model = generateModel({ seed });
      for (const entitySet of [...model.entitySets.keys()].slice(0, 3)) {
        const settings = { model, entitySet };
        const texts = fc.sample(
          fc.oneof(
            typedQueryArbitrary(model, entitySet).map((q) => q.text),
            applyQueryArbitrary(model, entitySet).map((q) => q.text),
          ),
          { seed, numRuns: 12 },
        );
        for (const encoded of texts) {
          const text = asTyped(encoded);
          if (text === undefined || !isValid(text, settings) || text.length > 400) continue;
          checkQuery(text, settings, problems, checked < 4);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(problems.slice(0, 10)).toEqual([]);
  });
});

describe('completeQuery on the example model', () => {
  it('offers option names not yet present, and inserts the `=`', () => {
    expect(labels('$fil|')).toEqual(['$filter']);
    expect(offered('$fil|')[0]).toMatchObject({ kind: 'option', insertText: '$filter=', range: { start: 0, end: 4 } });
    const next = labels('$filter=name eq null&|');
    expect(next).toContain('$orderby');
    expect(next).not.toContain('$filter');
  });

  it('offers properties and navigation properties with their types, replacing the word at the cursor', () => {
    const items = offered('$filter=na|');
    expect(items).toEqual([{ label: 'name', kind: 'property', detail: 'Edm.String', insertText: 'name', range: { start: 8, end: 10 } }]);
    // The whole word is replaced, also from its middle.
    expect(offered("$filter=na|me eq 'x'")[0]?.range).toEqual({ start: 8, end: 12 });
    expect(offered('$filter=lo|').map((i) => [i.label, i.kind, i.detail])).toContainEqual(['locality', 'navigation', 'AssetManagement.Locality']);
    expect(labels('$filter=locality/|')).toEqual(expect.arrayContaining(['name', 'address', 'assets']));
    expect(labels('$filter=locality/address/|')).toEqual(['street', 'city', 'postalCode']);
  });

  it('leaves out what the entity set refuses: a non-filterable property in $filter, a non-sortable one in $orderby', () => {
    expect(labels('$filter=|')).not.toContain('tenantId');
    expect(labels('$orderby=|')).not.toContain('tags');
    expect(labels('$orderby=|')).toContain('name');
    expect(labels('$select=|')).not.toContain('tenantId');
  });

  it('after a comparison, only values of a fitting type: properties, functions and literals', () => {
    const afterName = offered('$filter=name eq |');
    const names = afterName.map((i) => i.label);
    expect(names).toEqual(expect.arrayContaining(['code', 'notes', 'tolower', 'concat', "''", 'null']));
    expect(names).not.toContain('year');
    expect(names).not.toContain('weightKg');
    expect(names).not.toContain('0');
    expect(names).not.toContain('not');
    expect(labels('$filter=weightKg gt |')).toEqual(expect.arrayContaining(['purchasePrice', 'serialNumber', 'round', 'length', '0']));
    expect(labels('$filter=weightKg gt |')).not.toContain('name');
    expect(labels('$filter=createdAt lt |')).toEqual(expect.arrayContaining(['now', 'updatedAt', '2024-01-01T00:00:00Z']));
    expect(labels('$filter=createdAt lt |')).not.toContain("''");
  });

  it('offers enumeration members after an enumeration-valued operand', () => {
    const items = offered('$filter=status eq |');
    expect(items.filter((i) => i.kind === 'enumMember').map((i) => i.insertText)).toEqual([
      "AssetManagement.AssetStatus'active'",
      "AssetManagement.AssetStatus'maintenance'",
      "AssetManagement.AssetStatus'retired'",
    ]);
    expect(offered('$filter=access has |').filter((i) => i.kind === 'enumMember')).toHaveLength(3);
    expect(labels('$filter=access has |')).not.toContain('name');
  });

  it('offers the operators that apply to the operand before the cursor', () => {
    expect(labels('$filter=name |')).toEqual(expect.arrayContaining(['eq', 'ne', 'gt', 'in']));
    expect(labels('$filter=name |')).not.toContain('add');
    expect(labels('$filter=name |')).not.toContain('and');
    expect(labels('$filter=weightKg |')).toEqual(expect.arrayContaining(['add', 'mul', 'lt']));
    expect(labels("$filter=name eq 'x' |")).toEqual(expect.arrayContaining(['and', 'or']));
    expect(labels('$filter=access |')).toContain('has');
    expect(offered('$filter=name |').find((i) => i.label === 'eq')).toMatchObject({ kind: 'operator', detail: 'equal' });
    expect(labels('$orderby=name |')).toEqual(expect.arrayContaining(['asc', 'desc']));
  });

  it('offers functions, with their signatures, and their argument types inside a call', () => {
    const contains = offered('$filter=cont|').find((i) => i.label === 'contains');
    expect(contains).toMatchObject({ kind: 'function', insertText: 'contains(', detail: 'contains(string, string)' });
    expect(offered('$filter=no|').find((i) => i.label === 'now')?.insertText).toBe('now()');
    const inContains = labels('$filter=contains(|');
    expect(inContains).toEqual(expect.arrayContaining(['name', 'code', 'tolower', "''"]));
    expect(inContains).not.toContain('weightKg');
    expect(labels('$filter=year(|')).toEqual(expect.arrayContaining(['installedOn', 'createdAt']));
    expect(labels('$filter=year(|')).not.toContain('name');
  });

  it('lambda variables, any/all after a collection, $it', () => {
    expect(labels('$filter=tags/|')).toEqual(expect.arrayContaining(['any', 'all', '$count']));
    const inLambda = offered('$filter=tickets/any(t:t/|');
    expect(inLambda.map((i) => i.label)).toEqual(expect.arrayContaining(['priority', 'openedAt', 'asset']));
    expect(offered('$filter=tags/any(t:|').find((i) => i.label === 't')).toMatchObject({ kind: 'variable', detail: 'Edm.String' });
    expect(labels('$filter=|')).toEqual(expect.arrayContaining(['$it', '$this']));
  });

  it('$compute aliases where they may be used', () => {
    const items = offered('$compute=weightKg mul 2 as doubled&$filter=dou|');
    expect(items.map((i) => [i.label, i.kind])).toContainEqual(['doubled', 'computed']);
    expect(labels('$compute=weightKg mul 2 as doubled&$select=|')).toContain('doubled');
  });

  it('inside $expand(…): the nested options allowed there, then the target type’s names', () => {
    const nested = offered('$expand=tickets(|');
    expect(nested.map((i) => i.label)).toEqual(expect.arrayContaining(['$filter', '$select', '$orderby', '$top', '$expand', '$levels']));
    expect(nested.find((i) => i.label === '$filter')).toMatchObject({ kind: 'option', insertText: '$filter=' });
    expect(labels('$expand=tickets($filter=|')).toEqual(expect.arrayContaining(['priority', 'openedAt', 'estimatedHours']));
    expect(labels('$expand=tickets($filter=|')).not.toContain('weightKg');
    expect(labels('$expand=tickets($select=|')).toEqual(expect.arrayContaining(['priority', 'openedAt']));
    expect(labels('$expand=tickets($top=|')).toEqual([]);
    expect(labels('$expand=|')).toEqual(expect.arrayContaining(['locality', 'tickets', '*']));
    // Not expandable: left out.
    expect(labels('$expand=|')).not.toContain('inspections');
  });

  it('$apply: transformation names, the properties of the rows each step gives, aggregation words', () => {
    expect(offered('$apply=gr|')).toEqual([{ label: 'groupby', kind: 'transformation', insertText: 'groupby(', range: { start: 7, end: 9 } }]);
    expect(labels('$apply=groupby((|')).toEqual(expect.arrayContaining(['status', 'locality', 'name']));
    expect(labels('$apply=groupby((|')).not.toContain('contains');
    // After groupby, only the grouped properties (and aggregates) remain.
    expect(labels('$apply=groupby((status))/filter(|')).toContain('status');
    expect(labels('$apply=groupby((status))/filter(|')).not.toContain('name');
    expect(labels('$apply=groupby((status),aggregate(|')).toEqual(expect.arrayContaining(['$count', 'purchasePrice']));
    expect(labels('$apply=aggregate(purchasePrice |')).toEqual(expect.arrayContaining(['with', 'as']));
    expect(labels('$apply=aggregate(purchasePrice with |')).toEqual(['sum', 'min', 'max', 'average', 'countdistinct']);
    expect(labels('$apply=aggregate(purchasePrice with sum as total)/filter(|')).toContain('total');
  });

  it('nothing inside a string literal, after a syntax error, or in a value that takes no names', () => {
    expect(labels("$filter=name eq 'ab|")).toEqual([]);
    expect(labels('$filter=name eq ) |')).toEqual([]);
    expect(labels('$top=|')).toEqual([]);
    expect(labels('$count=|')).toEqual(['true', 'false']);
  });
});

describe('the example service’s own model (examples/asset-service: CSDL JSON)', () => {
  const service: BindSettings = { model: serviceModel, entitySet: 'assets' };

  it('each kind: options, properties, navigation, enumeration members, functions, operators, variables, nested options', () => {
    const kinds = (query: string) => new Set(offered(query, service).map((item) => item.kind));
    expect(labels('$|', service)).toEqual(expect.arrayContaining(['$filter', '$select', '$expand', '$orderby', '$top', '$apply']));
    expect(offered('$filter=cat|', service)).toMatchObject([{ label: 'category', kind: 'property', detail: 'AssetManagement.AssetCategory' }]);
    expect(
      offered('$filter=category eq |', service)
        .filter((i) => i.kind === 'enumMember')
        .map((i) => i.label),
    ).toEqual([
      "AssetManagement.AssetCategory'pump'",
      "AssetManagement.AssetCategory'generator'",
      "AssetManagement.AssetCategory'vehicle'",
      "AssetManagement.AssetCategory'hvac'",
      "AssetManagement.AssetCategory'conveyor'",
      "AssetManagement.AssetCategory'compressor'",
    ]);
    expect(kinds('$filter=maintenanceTickets/any(t:t/|')).toEqual(new Set(['property', 'navigation']));
    expect(labels('$filter=maintenanceTickets/any(t:t/|', service)).toEqual(expect.arrayContaining(['priority', 'status', 'asset']));
    expect(labels('$filter=maintenanceTickets/any(t:|', service)).toContain('t');
    expect(labels('$filter=commissionedAt |', service)).toEqual(expect.arrayContaining(['gt', 'le', 'add', 'sub']));
    expect(labels('$filter=commissionedAt |', service)).not.toContain('mul');
    expect(labels('$filter=year(|', service)).toContain('commissionedAt');
    expect(labels('$expand=maintenanceTickets($orderby=|', service)).toEqual(expect.arrayContaining(['priority', 'status']));
    expect(labels('$expand=locality($select=|', service)).toContain('name');
    expect(labels('$apply=groupby((category),aggregate($count as n))&$orderby=|', service)).toEqual(expect.arrayContaining(['category', 'n']));
  });

  it('hover on a set with a description, quick fixes on its names', () => {
    expect(describeQuery("$filter=locality/name eq 'x'", 12, service)).toMatchObject({
      kind: 'navigation',
      label: 'locality',
      type: 'AssetManagement.Locality',
    });
    expect(quickFixes("$filter=catgory eq 'pump'", service).map((fix) => fix.title)).toEqual(["Change to 'category'"]);
  });
});

describe('completeQuery on Microsoft Graph’s users', () => {
  const graph = modelFromCsdlXml(readFileSync(new URL('../../../shared/conformance/metadata/msgraph-v1.0-clean.xml', import.meta.url), 'utf8'));
  const users: BindSettings = { model: graph, entitySet: 'users' };

  it('properties, navigation, a lambda over a collection of complex values, nested $expand', () => {
    expect(labels('$filter=accountE|', users)).toEqual(['accountEnabled']);
    expect(offered('$filter=manager|', users).find((i) => i.label === 'manager')).toMatchObject({
      kind: 'navigation',
      detail: 'microsoft.graph.directoryObject',
    });
    expect(labels('$filter=assignedLicenses/any(l:l/|', users)).toEqual(['disabledPlans', 'skuId']);
    expect(labels('$filter=displayName eq |', users)).toContain('mail');
    expect(labels('$filter=displayName eq |', users)).not.toContain('accountEnabled');
    expect(labels('$filter=accountEnabled eq |', users)).toEqual(expect.arrayContaining(['true', 'false']));
    expect(labels('$expand=manager($select=|', users)).toEqual(expect.arrayContaining(['id', 'deletedDateTime']));
    expect(labels('$select=id,displ|', users)).toEqual(['displayName']);
  });

  it('functions, operators, literals, hover and signature help against the published model', () => {
    expect(labels('$filter=startswith(|', users)).toEqual(expect.arrayContaining(['displayName', 'mail', 'tolower']));
    expect(labels('$filter=startswith(|', users)).not.toContain('accountEnabled');
    expect(labels('$filter=createdDateTime |', users)).toEqual(expect.arrayContaining(['gt', 'lt', 'eq']));
    expect(labels('$filter=createdDateTime gt |', users)).toEqual(expect.arrayContaining(['now', '2024-01-01T00:00:00Z']));
    expect(describeQuery("$filter=mail eq 'a'", 10, users)).toMatchObject({ kind: 'property', label: 'mail', type: 'Edm.String' });
    expect(signatureHelp('$filter=startswith(displayName,', 31)).toMatchObject({ activeParameter: 1 });
    // (Graph's types are open: an unknown name is a dynamic property there, no error to fix; a function is.)
    expect(quickFixes("$filter=startwith(displayName,'a')", users).map((fix) => fix.title)).toEqual(["Change to 'startswith'"]);
  });

  it('is fast enough to run on every key stroke (a 200-character query: well under a millisecond on average)', () => {
    const query =
      "$filter=accountEnabled eq true and startswith(displayName,'Ada') and (department eq 'Sales' or jobTitle ne null) and assignedLicenses/any(l:l/skuId ne null)&$select=id,displayName,mail&$orderby=displayName desc";
    expect(query.length).toBeGreaterThan(200);
    // Every offset: no throw, and a name offered at each name's start (the speed itself is measured in bench/).
    for (let offset = 0; offset <= query.length; offset++) expect(Array.isArray(completeQuery(query, offset, users))).toBe(true);
    expect(labels(`${query.slice(0, query.indexOf('jobTitle'))}|`, users)).toContain('jobTitle');
  });
});

describe('describeQuery, signatureHelp, quickFixes', () => {
  const at = (query: string) => describeQuery(query.replace('|', ''), query.indexOf('|'), assets);

  it('describes properties, navigation, variables, literals, operators and functions with the overload that matched', () => {
    expect(at("$filter=na|me eq 'x'")).toEqual({ range: { start: 8, end: 12 }, kind: 'property', label: 'name', type: 'Edm.String' });
    expect(at("$filter=loca|lity/name eq 'x'")).toMatchObject({ kind: 'navigation', label: 'locality', type: 'AssetManagement.Locality' });
    expect(at("$filter=tags/any(t:t| eq 'a')")).toMatchObject({ kind: 'variable', label: 't', type: 'Edm.String' });
    expect(at("$filter=name eq 'x|'")).toMatchObject({ kind: 'literal', label: 'x', type: 'Edm.String' });
    expect(at('$filter=year(insta|lledOn) eq 2020')).toMatchObject({ kind: 'property', type: 'Edm.Date' });
    expect(at('$filter=ye|ar(installedOn) eq 2020')).toMatchObject({
      kind: 'function',
      label: 'year',
      signature: 'year(Edm.Date): Edm.Int32',
      overloads: ['year(Edm.Date): Edm.Int32', 'year(Edm.DateTimeOffset): Edm.Int32'],
    });
    expect(at("$expand=tickets($filter=prio|rity eq 'high')")).toMatchObject({ kind: 'property', label: 'priority', type: 'AssetManagement.TicketPriority' });
    expect(at('$select=co|de')).toMatchObject({ kind: 'property', label: 'code' });
    expect(at('$top=1|0')).toBeUndefined();
  });

  it('gives the description annotation of a property from CSDL', () => {
    const model = modelFromCsdlXml(`<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="D" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <EntityType Name="Item"><Key><PropertyRef Name="Id"/></Key>
      <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
      <Property Name="Name" Type="Edm.String"><Annotation Term="Org.OData.Core.V1.Description" String="What the item is called"/></Property>
    </EntityType>
    <EntityContainer Name="C"><EntitySet Name="Items" EntityType="D.Item"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`);
    const settings = { model, entitySet: 'Items' };
    expect(describeQuery("$filter=Name eq 'x'", 9, settings)).toMatchObject({ label: 'Name', description: 'What the item is called' });
    expect(completeQuery('$filter=Na', 10, settings).find((item) => item.label === 'Name')).toMatchObject({ documentation: 'What the item is called' });
  });

  it('signature help: the overloads, the active parameter, the first overload that has it', () => {
    const help = signatureHelp('$filter=substring(name,', 23);
    expect(help?.signatures.map((s) => s.label)).toEqual([
      'substring(Edm.String, Edm.Int32): Edm.String',
      'substring(Edm.String, Edm.Int32, Edm.Int32): Edm.String',
    ]);
    expect(help).toMatchObject({ activeSignature: 0, activeParameter: 1 });
    expect(signatureHelp('$filter=substring(name,1,', 25)).toMatchObject({ activeSignature: 1, activeParameter: 2 });
    expect(signatureHelp('$filter=contains(tolower(', 25)?.signatures[0]?.label).toBe('tolower(Edm.String): Edm.String');
    expect(signatureHelp('$filter=contains(tolower(name),', 31)?.signatures[0]?.label).toBe('contains(Edm.String, Edm.String): Edm.Boolean');
    expect(signatureHelp('$filter=name eq ', 16)).toBeUndefined();
  });

  it('quick fixes: did-you-mean for names and options, a missing quote, = and != for eq and ne', () => {
    const fix = (query: string) => quickFixes(query, assets).map((f) => [f.title, f.edits]);
    expect(fix("$filter=nmae eq 'a'")).toEqual([["Change to 'name'", [{ range: { start: 8, end: 12 }, newText: 'name' }]]]);
    expect(fix("$filter=locality/nmae eq 'x'")).toEqual([["Change to 'name'", [{ range: { start: 17, end: 21 }, newText: 'name' }]]]);
    expect(fix("$filter=contians(name,'a')")).toEqual([["Change to 'contains'", [{ range: { start: 8, end: 16 }, newText: 'contains' }]]]);
    expect(fix('$expand=tikets')).toEqual([["Change to 'tickets'", [{ range: { start: 8, end: 14 }, newText: 'tickets' }]]]);
    expect(fix("$filtre=name eq 'a'")).toEqual([["Change to '$filter'", [{ range: { start: 0, end: 7 }, newText: '$filter' }]]]);
    expect(fix("$filter=name eq 'a")).toEqual([['Close the string', [{ range: { start: 18, end: 18 }, newText: "'" }]]]);
    expect(fix("$filter=name = 'a'")).toEqual([["Change '=' to 'eq'", [{ range: { start: 13, end: 14 }, newText: 'eq' }]]]);
    expect(fix("$filter=name != 'a'")).toEqual([["Change '!=' to 'ne'", [{ range: { start: 13, end: 15 }, newText: 'ne' }]]]);
    // Each fix, applied, gives a valid query.
    for (const query of [
      "$filter=nmae eq 'a'",
      "$filter=contians(name,'a')",
      '$expand=tikets',
      "$filtre=name eq 'a'",
      "$filter=name eq 'a",
      "$filter=name = 'a'",
    ]) {
      const [first] = quickFixes(query, assets);
      const edit = first?.edits[0];
      expect(edit).toBeDefined();
      const fixed = `${query.slice(0, edit!.range.start)}${edit!.newText}${query.slice(edit!.range.end)}`;
      expect(validateQuery(fixed, assets)).toEqual([]);
    }
  });
});

describe('the language service never throws', () => {
  it('for any text and any offset', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          modelQueryArbitrary(assetModel, 'assets'),
          fc.string({ maxLength: 60 }),
          fc.string({ maxLength: 40 }).map((s) => `$filter=${s}`),
        ),
        fc.integer({ min: -5, max: 300 }),
        (text, offset) => {
          expect(Array.isArray(completeQuery(text, offset, assets))).toBe(true);
          describeQuery(text, offset, assets);
          signatureHelp(text, offset);
          expect(Array.isArray(quickFixes(text, assets))).toBe(true);
        },
      ),
      { numRuns: 300, seed: 3232 },
    );
  });
});
