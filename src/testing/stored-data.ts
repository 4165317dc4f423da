/**
 * Rows for any model, in stored form: every table of `storedTables` (entity sets, contained
 * entities with their container's key, link tables) with values of every property's type,
 * complex values and collections of them, and foreign keys that refer to rows that exist (or are
 * null). What the memory backend reads as `data`, and what a test loads into a database or
 * MongoDB, so that every backend answers over the same rows. The values keep to the storage
 * conventions the backends document (grammar/DEVIATIONS.md): instants in UTC, text without
 * white space other than spaces and without characters whose case mapping changes their length.
 */
import fc from 'fast-check';
import type { EntitySet, Model, Property, StructuredType } from '../model/model.js';
import { domainOf } from '../reference/values.js';
import { fromReference } from '../semantic/types.js';
import type { StorageMapping } from '../storage/storage-mapping.js';
import { storedTables, type EntityTable, type StoredTable } from '../storage/tables.js';
import { columnName, navigationLink, storedKey, type StoredColumn } from '../storage/links.js';
import { navigationTarget } from '../model/navigation.js';
import { recursiveHierarchies } from '../model/recursive-hierarchy.js';
import { valueArbitrary, type TestRow } from './model-arbitraries.js';
import { seededRandom } from './seeded-random.js';

/** Options of {@link generateStoredData} and {@link storedDataArbitrary}. */
export interface StoredDataOptions {
  /** Overrides of the storage conventions (the same the backends are given). */
  readonly storage?: StorageMapping;
  /** Rows per entity set (at most; keys are unique). Default 8. */
  readonly rows?: number;
  /** Contained entities per container (at most). Default 3. */
  readonly children?: number;
  /** Targets per source row in a link table (at most). Default 3. */
  readonly links?: number;
  /**
   * Only these tables (entity sets, and implicit sets of contained entities such as
   * `Person_Trips`; link tables between them follow); default every table.
   */
  readonly sets?: readonly string[];
  /** Nested complex values deeper than this are null. Default 3. */
  readonly depth?: number;
}

const random = seededRandom;

/** Key strings short enough for every engine's index (and without the edge values that are hundreds of characters long). */
const keyArbitrary = (property: Property): fc.Arbitrary<unknown> =>
  property.type.kind === 'primitive' && property.type.name === 'Edm.String'
    ? fc
        .string({ minLength: 1, maxLength: 12 })
        .filter((s) => s.trim() === s)
        .map((s) => withinMaxLength(portableText(s), property))
    : property.type.kind === 'primitive' && property.type.name === 'Edm.Single'
      ? fc.integer({ min: -40_000, max: 40_000 }).map((quarters) => quarters / 4)
      : valueArbitrary({ ...property, collection: false });

/**
 * Text every engine stores and compares as the reference does (see grammar/DEVIATIONS.md): white
 * space other than the space becomes a space (SQL's `TRIM` removes spaces only), and a character
 * whose case mapping changes its length (`ß` → `SS`), or a cased letter beyond Latin (whose case
 * mapping depends on the engine's Unicode version), becomes `?`.
 */
function portableText(text: string): string {
  let result = '';
  for (const character of text.replace(/(?! )\s/g, ' ')) {
    const upper = character.toUpperCase();
    const lower = character.toLowerCase();
    // Engines agree on the case of Latin letters; beyond them their Unicode versions differ (MariaDB's tables are older than JavaScript's).
    const cased = upper !== character || lower !== character;
    result +=
      upper.length !== character.length || lower.length !== character.length || (cased && (character.codePointAt(0) as number) > 0x24f) ? '?' : character;
  }
  return result;
}

/** An instant written in UTC: the storage conventions keep the instant, not the offset (DEVIATIONS, "Date and time parts"). */
function inUtc(text: string): string {
  const instant = new Date(text);
  if (Number.isNaN(instant.getTime())) return text;
  return instant.toISOString().replace('.000Z', 'Z');
}

/** A string cut to the property's `MaxLength` (in characters, as databases count them). */
function withinMaxLength(text: string, property: Property): string {
  const max = property.facets?.maxLength;
  if (max === undefined) return text;
  const characters = [...text];
  return characters.length <= max ? text : characters.slice(0, max).join('');
}

/**
 * Singles that every engine stores and prints exactly: quarters within ±10^4 (a float32 holds
 * them, their shortest decimal text is the same as a double's, and they have at most 6
 * significant digits, which MySQL/MariaDB keep when writing a FLOAT into JSON; see DEVIATIONS).
 */
const SINGLE = fc.integer({ min: -40_000, max: 40_000 }).map((quarters) => quarters / 4);

/** Values of a property: primitive and enumeration values, complex values (nested up to `depth`), and collections of either. */
function propertyArbitrary(property: Property, depth: number, maxDepth: number, within: readonly StructuredType[] = []): fc.Arbitrary<unknown> {
  let value: fc.Arbitrary<unknown>;
  if (property.type.kind === 'complex') {
    const complex = property.type.type;
    // A complex type inside itself is null (SQL stores it flattened once; see DEVIATIONS).
    if (depth >= maxDepth || (within.includes(complex) && !property.collection)) value = property.collection ? fc.constant([]) : fc.constant(null);
    else {
      const single = complexArbitrary(complex, depth + 1, maxDepth, [...within, complex]);
      value = property.collection ? fc.array(single, { maxLength: 3 }) : single;
    }
  } else if (property.type.kind === 'primitive' && property.type.name === 'Edm.Single') {
    value = property.collection ? fc.array(SINGLE, { maxLength: 4 }) : SINGLE;
  } else {
    const name = property.type.kind === 'primitive' ? property.type.name : undefined;
    const portable = (v: unknown): unknown =>
      typeof v !== 'string' ? v : name === 'Edm.String' ? withinMaxLength(portableText(v), property) : name === 'Edm.DateTimeOffset' ? inUtc(v) : v;
    value = valueArbitrary(property).map((v) => (Array.isArray(v) ? v.map(portable) : portable(v)));
  }
  // A collection is never null (CSDL: Nullable of a collection is about its items): empty instead.
  return property.nullable && !property.collection ? fc.option(value, { nil: null, freq: 6 }) : value;
}

function complexArbitrary(
  type: StructuredType,
  depth: number,
  maxDepth: number,
  within: readonly StructuredType[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const property of type.properties.values()) fields[property.name] = propertyArbitrary(property, depth, maxDepth, within);
  return fc.record(fields);
}

/** The identity of a key value, as the memory backend compares keys (a Guid in any case, a number or a bigint). */
function keyIdentity(properties: readonly Property[], row: TestRow): string {
  return properties
    .map((p) => {
      const value = row[p.name];
      const normalized = value === null || value === undefined ? null : domainOf(fromReference(p.type)).normalize(value);
      return JSON.stringify(normalized, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    })
    .join('\u0000');
}

/**
 * Rows of every stored table of `model` (see `storedTables`), deterministic for a seed.
 *
 * @example
 * ```ts
 * const data = generateStoredData(tripPin, { seed: 1 });
 * compileQuery(bindQuery('$filter=Friends/any()', { model: tripPin, entitySet: 'People' }), { data }).apply(data.People);
 * ```
 */
export function generateStoredData(model: Model, options: StoredDataOptions & { readonly seed?: number } = {}): Record<string, TestRow[]> {
  const seed = options.seed ?? 0;
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(next() * items.length)];
  const count = (max: number): number => Math.floor(next() * (max + 1));
  const maxRows = options.rows ?? 8;
  const maxChildren = options.children ?? 3;
  const maxLinks = options.links ?? 3;
  const maxDepth = options.depth ?? 3;
  let tables: StoredTable[] = storedTables(model, options.storage);
  if (options.sets !== undefined) {
    const wanted = new Set(options.sets);
    tables = tables.filter((t) => t.kind === 'link' || wanted.has(t.name));
    // Link tables between two kept tables' types only.
    const types = new Set(tables.flatMap((t) => (t.kind === 'entities' ? [t.set.type] : [])));
    tables = tables.filter((t) => t.kind === 'entities' || (types.has(t.source) && types.has(t.navigation.target)));
  }
  const data: Record<string, TestRow[]> = {};
  let sample = 0;
  const rowsOf = (table: EntityTable, n: number): TestRow[] => {
    const type = table.set.type;
    const keys = type.key.map((k) => type.properties.get(k) as Property);
    const fields: Record<string, fc.Arbitrary<unknown>> = {};
    for (const property of type.properties.values())
      fields[property.name] = keys.includes(property) ? keyArbitrary(property) : propertyArbitrary(property, 0, maxDepth);
    sample++;
    const rows = n === 0 ? [] : fc.sample(fc.record(fields) as fc.Arbitrary<TestRow>, { seed: seed * 7919 + sample, numRuns: n });
    const seen = new Set<string>();
    return rows.filter((row) => {
      const identity = keyIdentity(keys, row);
      if (seen.has(identity)) return false;
      seen.add(identity);
      return true;
    });
  };
  // Entity sets, then contained entities under each container row (in the order storedTables lists them: containers first).
  const entityTables = tables.filter((t): t is EntityTable => t.kind === 'entities');
  for (const table of entityTables) {
    if (table.set.container === undefined) {
      data[table.name] = rowsOf(table, maxRows);
      continue;
    }
    const container = table.set.container;
    const link = navigationLink(container.type, container.navigation, options.storage);
    const pairs = link?.kind === 'direct' ? link.pairs : [];
    const containerTable = entityTables.find((t) => t.set.type === container.type && data[t.name] !== undefined);
    const containers = containerTable === undefined ? [] : (data[containerTable.name] as TestRow[]);
    const candidates = rowsOf(table, containers.length * maxChildren);
    const rows: TestRow[] = [];
    const ownKey = table.set.type.key;
    let previous: TestRow[] = [];
    for (const parent of containers) {
      const children: TestRow[] = [];
      for (let i = count(maxChildren); i > 0 && candidates.length > 0; i--) {
        const child = candidates.shift() as TestRow;
        // A key need only be unique within its container: some repeat one of another container's.
        const other = next() < 0.3 ? pick(previous) : undefined;
        if (other !== undefined) for (const k of ownKey) child[k] = other[k];
        // The container's stored key (its own container's key first, for nested containment).
        for (const { source, target } of pairs) if (target.column !== undefined) child[target.column] = parent[columnName(source)];
        children.push(child);
      }
      rows.push(...children);
      if (children.length > 0) previous = children;
    }
    data[table.name] = rows;
  }
  // Foreign keys (hidden columns, and properties in referential constraints): a row of the target's set, or null.
  const rowsOfSet = (set: EntitySet | undefined): TestRow[] => (set === undefined ? [] : (data[set.name] ?? []));
  for (const table of entityTables) {
    const type = table.set.type;
    // The links that this row holds the target's stored key for: every target column is one of the target's key columns.
    const foreign: { pairs: readonly { source: StoredColumn; target: StoredColumn }[]; targets: TestRow[]; nullable: boolean; tree: boolean }[] = [];
    // The parent navigation properties of the type's recursive hierarchies: their rows make trees.
    const parents = new Set(recursiveHierarchies(model, type).map((h) => h.parentNavigationProperty));
    for (const navigation of type.navigation.values()) {
      const link = navigationLink(type, navigation, options.storage);
      if (link?.kind !== 'direct' || link.pairs.length === 0) continue;
      const targetKey = new Set(storedKey(navigation.target, options.storage).map(columnName));
      if (!link.pairs.every((p) => targetKey.has(columnName(p.target)))) continue;
      // The way back to this row's own container is already set.
      if (link.pairs.some((p) => p.source.column !== undefined && table.key.includes(p.source.column))) continue;
      const nullable = link.pairs.every((p) => p.source.property === undefined || (p.source.property.nullable && !type.key.includes(p.source.property.name)));
      const targetSet = navigationTarget(model, table.set, navigation);
      foreign.push({ pairs: link.pairs, targets: rowsOfSet(targetSet), nullable, tree: parents.has(navigation.name) && targetSet === table.set });
    }
    const rows = data[table.name] ?? [];
    for (const [index, row] of rows.entries()) {
      for (const f of foreign) {
        // A hierarchy's parent is an earlier row (a forest with chains; one row in five a root),
        // and one time in forty any row (then a cycle may close: the spec forbids it, every engine
        // must still end and agree).
        const tree = f.tree && index > 0 && next() >= 0.025 ? f.targets.slice(0, index) : f.targets;
        const target = f.nullable && (next() < 0.2 || (f.tree && index === 0)) ? undefined : pick(tree);
        // A property with no row to refer to keeps its own value (it is not null where the model says so).
        if (target === undefined && !f.nullable) continue;
        for (const { source, target: there } of f.pairs) row[columnName(source)] = target === undefined ? null : target[columnName(there)];
      }
    }
    // Constraint properties in the key may now repeat a key: keep the first row of each.
    const keys = type.key.map((k) => type.properties.get(k) as Property);
    const seen = new Set<string>();
    data[table.name] = rows.filter((row) => {
      const identity = [
        ...table.key.filter((k) => !type.key.includes(k)).map((k) => JSON.stringify(row[k], (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))),
        keyIdentity(keys, row),
      ].join('\u0001');
      if (seen.has(identity)) return false;
      seen.add(identity);
      return true;
    });
  }
  // Link tables: a few distinct targets per source row.
  for (const table of tables) {
    if (table.kind !== 'link') continue;
    const link = navigationLink(table.source, table.navigation, options.storage);
    if (link?.kind !== 'table') continue;
    const sourceTable = entityTables.find((t) => t.set.type === table.source && (data[t.name]?.length ?? 0) > 0);
    const sources = sourceTable === undefined ? [] : (data[sourceTable.name] as TestRow[]);
    const targets = rowsOfSet(navigationTarget(model, sourceTable?.set, table.navigation));
    // With `sets`, a link between tables that were not made is left out.
    if (options.sets !== undefined && (sources.length === 0 || targets.length === 0)) continue;
    const rows: TestRow[] = [];
    for (const source of sources) {
      const chosen = new Set<TestRow>();
      for (let i = count(maxLinks); i > 0 && targets.length > 0; i--) chosen.add(pick(targets) as TestRow);
      for (const target of chosen) {
        const row: TestRow = {};
        for (const c of link.source) row[c.link] = source[columnName(c.column)];
        for (const c of link.target) row[c.link] = target[columnName(c.column)];
        rows.push(row);
      }
    }
    data[table.name] = rows;
  }
  // Open types' dynamic properties: a JSON object per row, of mixed JSON types, some absent (storage/dynamic-properties.ts).
  for (const table of entityTables) {
    if (table.dynamic === undefined) continue;
    for (const row of data[table.name] ?? []) {
      const bag: Record<string, unknown> = {};
      for (const name of DYNAMIC_PROPERTY_NAMES) if (next() < 0.75) bag[name] = pick(DYNAMIC_VALUES);
      row[table.dynamic] = next() < 0.1 ? null : bag;
    }
  }
  return data;
}

/** The names of the dynamic properties `generateStoredData` gives open types' rows (and `typedQueryArbitrary` queries). */
export const DYNAMIC_PROPERTY_NAMES: readonly string[] = ['dynA', 'dynB', 'dynC'];
/** Their values: every JSON primitive type, numbers whose sums are exact, strings that differ by case or look like numbers. */
const DYNAMIC_VALUES: readonly unknown[] = [null, 0, 1, 2, -1.5, 2.5, 'a', 'b', 'B', '', '1', true, false];

/** {@link generateStoredData} as a fast-check arbitrary (over the seed). */
export function storedDataArbitrary(model: Model, options: StoredDataOptions = {}): fc.Arbitrary<Record<string, TestRow[]>> {
  return fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((seed) => generateStoredData(model, { ...options, seed }));
}
