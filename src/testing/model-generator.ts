/**
 * Random models for differential campaigns: small (3–8 entity types) CSDL documents that mix the
 * shapes real services have (navigation with and without referential constraints, many-to-many
 * links, containment nested two levels, complex types nested and in collections, collections of
 * primitives, open types, spatial properties, facets, keys of several types, enumerations and
 * derived types), deterministic per seed, each one storable under the storage conventions
 * (docs/storage.md): generated names never collide with the names the conventions make.
 */
import fc from 'fast-check';
import type { Model, StructuredType } from '../model/model.js';
import { modelFromCsdlXml } from '../model/csdl-xml.js';
import { recursiveHierarchies } from '../model/recursive-hierarchy.js';
import { seededRandom } from './seeded-random.js';

/** What a generated model may contain (every shape is on by default). */
export interface ModelGeneratorOptions {
  /** The seed: the same seed and options give the same model. Default 0. */
  readonly seed?: number;
  /** Entity types at least (derived and contained ones included). Default 3. */
  readonly minEntityTypes?: number;
  /** Entity types at most. Default 8. */
  readonly maxEntityTypes?: number;
  /** Some entity types are open (`OpenType="true"`). Default true. */
  readonly openTypes?: boolean;
  /** Spatial properties (`Edm.GeographyPoint`, `Edm.GeometryPoint`, …). Default true. */
  readonly geo?: boolean;
  /** Collections of primitive values. Default true. */
  readonly primitiveCollections?: boolean;
  /** Collections of complex values. Default true. */
  readonly complexCollections?: boolean;
  /** Contained navigation (`ContainsTarget`), sometimes nested two levels. Default true. */
  readonly containment?: boolean;
  /** Derived entity types (`BaseType`). Default true. */
  readonly derivedTypes?: boolean;
  /**
   * A recursive hierarchy (`Aggregation.RecursiveHierarchy`) over one entity set's own rows, one
   * model in two: a nullable property holding the parent's key and a single-valued navigation
   * property to the same type constrained by it. Default true.
   */
  readonly hierarchies?: boolean;
  /** The schema's namespace. Default `Gen` followed by the seed. */
  readonly namespace?: string;
}

/** The shapes {@link generatedModelShapes} finds in a model. */
export const MODEL_SHAPES = [
  'navigation without constraint: single-valued',
  'navigation without constraint: collection with a single-valued partner',
  'navigation without constraint: many-to-many without partner',
  'navigation with a referential constraint',
  'recursive hierarchy',
  'containment',
  'containment nested two levels',
  'collection of complex values',
  'nested complex type',
  'collection of primitive values',
  'open type',
  'spatial property',
  'MaxLength',
  'Precision and Scale',
  'key Edm.Int32',
  'key Edm.Int64',
  'key Edm.String',
  'key Edm.Guid',
  'compound key',
  'enumeration',
  'flag enumeration',
  'Edm.Date',
  'Edm.DateTimeOffset',
  'Edm.Decimal',
  'Edm.Boolean',
  'Edm.Double',
  'derived type',
] as const;
/** A shape of a model (see {@link MODEL_SHAPES}). */
export type ModelShape = (typeof MODEL_SHAPES)[number];

const random = seededRandom;

/**
 * Words for names: some are SQL keywords (`Order`, `Group`, `Select`, …), none is an OData keyword or
 * a canonical function's name, and none holds an underscore (the storage conventions join names
 * with one: `Nav_Key`, `Type_Nav`), so no generated name equals a name the conventions make.
 */
const WORDS = [
  'Order',
  'Group',
  'Select',
  'Table',
  'User',
  'Value',
  'Index',
  'Name',
  'Title',
  'Code',
  'Amount',
  'Price',
  'Rating',
  'Level',
  'Status',
  'Kind',
  'Note',
  'Label',
  'Item',
  'Line',
  'Part',
  'Tag',
  'Node',
  'Owner',
  'Score',
  'Weight',
  'Region',
  'City',
  'Color',
  'Size',
  'Flag',
  'Stamp',
  'Born',
  'Limit',
  'Offset',
  'Total',
  'Account',
  'Customer',
  'Product',
  'Invoice',
  'Ticket',
  'Project',
  'Asset',
  'Device',
  'Reading',
  'Sensor',
  'Shelf',
  'Branch',
  'Leaf',
  'Review',
  'Author',
  'Book',
  'Chapter',
  'Page',
  'Folder',
  'Comment',
  'Event',
  'Venue',
  'Seat',
  'Route',
] as const;

/** Names unique (ignoring case: SQLite and MariaDB compare column names so) within their scopes. */
class Names {
  /** Every name given so far, in the case given (for deliberate case collisions across scopes). */
  readonly given: string[] = [];
  constructor(private readonly next: () => number) {}

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A name not in `scope` (lower-cased names), added to it. */
  name(scope: Set<string>, lowerFirst = false): string {
    for (let attempt = 0; ; attempt++) {
      let name: string;
      const roll = this.next();
      if (roll < 0.15 && this.given.length > 0) {
        // Another scope's name with its first letter's case flipped (`order` beside a type `Order`).
        const other = this.pick(this.given);
        const first = other.charAt(0);
        name = (first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase()) + other.slice(1);
      } else if (roll < 0.25) {
        // Long: several words (past 63 characters, PostgreSQL's limit, the SQL dialects fit it).
        const words = 3 + Math.floor(this.next() * 10);
        name = Array.from({ length: words }, () => this.pick(WORDS)).join('');
      } else if (roll < 0.3) {
        name = `_${this.pick(WORDS)}`;
      } else {
        name = this.pick(WORDS) + (this.next() < 0.3 ? String(Math.floor(this.next() * 10)) : '');
      }
      if (lowerFirst && name.charAt(0) !== '_') name = name.charAt(0).toLowerCase() + name.slice(1);
      if (attempt > 50) name = `${name}${attempt}`;
      if (name.toLowerCase() === '_id' || scope.has(name.toLowerCase())) continue;
      scope.add(name.toLowerCase());
      this.given.push(name);
      return name;
    }
  }
}

const escape = (text: string): string => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

interface PropertyPlan {
  readonly name: string;
  /** The type's name as CSDL writes it (`Edm.String`, `Gen1.Level`, `Collection(Edm.Int32)`). */
  readonly type: string;
  readonly nullable: boolean;
  readonly facets: string;
}

interface NavigationPlan {
  readonly name: string;
  readonly target: EntityPlan;
  readonly collection: boolean;
  readonly partner?: string;
  readonly containsTarget?: boolean;
  readonly constraints?: readonly (readonly [property: string, referenced: string])[];
  readonly nullable?: boolean;
}

interface EntityPlan {
  readonly name: string;
  readonly base?: EntityPlan;
  readonly key: readonly PropertyPlan[];
  readonly properties: PropertyPlan[];
  readonly navigation: NavigationPlan[];
  readonly open: boolean;
  /** Its entity set's name (none for contained and derived types). */
  set?: string;
  /** The names of its properties and navigation properties, lower-cased. */
  readonly scope: Set<string>;
  /** Contained: reached only through its container's navigation. */
  contained: boolean;
  /** A recursive hierarchy over its rows: its qualifier, node property (the key) and parent navigation property. */
  hierarchy?: { readonly qualifier: string; readonly node: string; readonly parent: string };
}

/** A primitive property's type and facets. */
const PRIMITIVES: readonly ((next: () => number) => { type: string; facets: string })[] = [
  (next) => ({ type: 'Edm.String', facets: next() < 0.4 ? ` MaxLength="${1 + Math.floor(next() * 40)}"` : '' }),
  () => ({ type: 'Edm.Int32', facets: '' }),
  () => ({ type: 'Edm.Int64', facets: '' }),
  () => ({ type: 'Edm.Int16', facets: '' }),
  (next) => {
    if (next() < 0.5) return { type: 'Edm.Decimal', facets: '' };
    const precision = 6 + Math.floor(next() * 25);
    return { type: 'Edm.Decimal', facets: ` Precision="${precision}" Scale="${Math.floor(next() * Math.min(precision, 8))}"` };
  },
  () => ({ type: 'Edm.Double', facets: '' }),
  () => ({ type: 'Edm.Boolean', facets: '' }),
  () => ({ type: 'Edm.Date', facets: '' }),
  (next) => ({ type: 'Edm.DateTimeOffset', facets: next() < 0.3 ? ` Precision="${Math.floor(next() * 7)}"` : '' }),
  () => ({ type: 'Edm.Guid', facets: '' }),
  () => ({ type: 'Edm.TimeOfDay', facets: '' }),
  () => ({ type: 'Edm.Duration', facets: '' }),
];

const SPATIAL = ['Edm.GeographyPoint', 'Edm.GeometryPoint', 'Edm.GeographyLineString', 'Edm.GeometryPolygon'] as const;

/** The key kinds: one property, or two (compound). */
const KEYS = ['Edm.Int32', 'Edm.Int64', 'Edm.String', 'Edm.Guid', 'compound'] as const;

/**
 * The CSDL XML text of the model {@link generateModel} builds for these options.
 *
 * @example
 * ```ts
 * const xml = generateModelCsdl({ seed: 7 }); // '<?xml version="1.0" …<edmx:Edmx Version="4.0" …'
 * ```
 */
export function generateModelCsdl(options: ModelGeneratorOptions = {}): string {
  const seed = options.seed ?? 0;
  const next = random(seed * 2654435761 + 12345);
  const chance = (p: number): boolean => next() < p;
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const namespace = options.namespace ?? `Gen${seed}`;
  const names = new Names(next);
  // Types and sets share one scope (case-insensitively: SQLite's table names ignore case).
  const global = new Set<string>();
  const on = (flag: boolean | undefined): boolean => flag ?? true;

  // Enumerations: one or two, one of them sometimes flags.
  const enums: { name: string; flags: boolean; members: string[] }[] = [];
  for (let i = int(0, 2); i > 0; i--) {
    const scope = new Set<string>();
    const flags = chance(0.35);
    const members = Array.from({ length: int(2, 4) }, () => names.name(scope));
    enums.push({ name: names.name(global), flags, members });
  }

  /** A scalar property type: primitive (some with facets), enumeration, or spatial. */
  const scalar = (inComplex: boolean): { type: string; facets: string } => {
    const roll = next();
    if (roll < 0.12 && enums.length > 0) {
      const e = pick(enums);
      return { type: `${namespace}.${e.name}`, facets: '' };
    }
    if (roll < 0.18 && on(options.geo) && !inComplex) {
      const type = pick(SPATIAL);
      return { type, facets: chance(0.3) ? ` SRID="${type.startsWith('Edm.Geography') ? 4326 : 0}"` : '' };
    }
    return pick(PRIMITIVES)(next);
  };

  // Complex types: up to three; a later one may hold an earlier one (nesting), or a collection of one.
  const complexes: { name: string; properties: PropertyPlan[] }[] = [];
  for (let i = int(0, 3); i > 0; i--) {
    const scope = new Set<string>();
    const properties: PropertyPlan[] = [];
    for (let j = int(1, 4); j > 0; j--) {
      const { type, facets } = scalar(true);
      properties.push({ name: names.name(scope), type, nullable: true, facets });
    }
    if (complexes.length > 0 && chance(0.6))
      properties.push({ name: names.name(scope), type: `${namespace}.${pick(complexes).name}`, nullable: true, facets: '' });
    if (on(options.primitiveCollections) && chance(0.2))
      properties.push({ name: names.name(scope), type: 'Collection(Edm.String)', nullable: false, facets: '' });
    complexes.push({ name: names.name(global), properties });
  }

  const keyProperty = (scope: Set<string>, type: string): PropertyPlan => ({
    name: names.name(scope),
    type,
    nullable: false,
    facets: type === 'Edm.String' && chance(0.4) ? ` MaxLength="${int(8, 40)}"` : '',
  });
  const keyOf = (scope: Set<string>, kind: (typeof KEYS)[number]): PropertyPlan[] =>
    kind === 'compound'
      ? [keyProperty(scope, pick(['Edm.Int32', 'Edm.String', 'Edm.Int64'])), keyProperty(scope, pick(['Edm.Int32', 'Edm.String', 'Edm.Guid']))]
      : [keyProperty(scope, kind)];

  /** A few structural properties of an entity type. */
  const fill = (entity: EntityPlan, min: number, max: number): void => {
    for (let j = int(min, max); j > 0; j--) {
      const roll = next();
      let type: string;
      let facets = '';
      let nullable = chance(0.8);
      if (roll < 0.12 && complexes.length > 0) type = `${namespace}.${pick(complexes).name}`;
      else if (roll < 0.2 && complexes.length > 0 && on(options.complexCollections)) {
        type = `Collection(${namespace}.${pick(complexes).name})`;
        nullable = false;
      } else if (roll < 0.28 && on(options.primitiveCollections)) {
        const item = pick(['Edm.String', 'Edm.Int32', 'Edm.Double', 'Edm.Date']);
        type = `Collection(${item})`;
        nullable = false;
      } else ({ type, facets } = scalar(false));
      entity.properties.push({ name: names.name(entity.scope), type, nullable, facets });
    }
  };

  const total = int(options.minEntityTypes ?? 3, Math.max(options.minEntityTypes ?? 3, options.maxEntityTypes ?? 8));
  const entities: EntityPlan[] = [];
  const newEntity = (base?: EntityPlan, contained = false): EntityPlan => {
    // A derived type shares its base's scope: a member either adds later (navigation is added to
    // roots after their derived types exist) is checked against both (seed 313 made 'Review' twice).
    const scope = base?.scope ?? new Set<string>();
    const entity: EntityPlan = {
      name: names.name(global),
      ...(base === undefined ? {} : { base }),
      key: base === undefined ? keyOf(scope, contained ? pick(['Edm.Int32', 'Edm.String']) : pick(KEYS)) : [],
      properties: [],
      navigation: [],
      open: on(options.openTypes) && chance(0.25),
      scope,
      contained,
    };
    fill(entity, 1, contained ? 3 : 5);
    entities.push(entity);
    return entity;
  };
  // Roots with entity sets (at least two), then contained and derived types while there is room.
  const roots: EntityPlan[] = [];
  const rootCount = Math.max(2, Math.min(total, int(2, 4)));
  for (let i = 0; i < rootCount; i++) roots.push(newEntity());
  while (entities.length < total) {
    const roll = next();
    if (roll < 0.4 && on(options.containment)) {
      // Contained under a root, or (two levels) under a contained type.
      const nested = entities.filter((e) => e.contained && depthOf(e) < 2);
      const container = nested.length > 0 && chance(0.5) ? pick(nested) : pick(roots);
      const child = newEntity(undefined, true);
      container.navigation.push({ name: names.name(container.scope), target: child, collection: true, containsTarget: true });
    } else if (roll < 0.6 && on(options.derivedTypes)) {
      newEntity(pick(roots));
    } else {
      roots.push(newEntity());
    }
  }
  function depthOf(entity: EntityPlan): number {
    const container = entities.find((e) => e.navigation.some((n) => n.containsTarget === true && n.target === entity));
    return container === undefined ? 0 : 1 + depthOf(container);
  }

  // Navigation between roots (targets are roots: their rows are in their entity sets).
  for (let i = int(2, 2 + roots.length); i > 0; i--) {
    const from = pick(roots);
    const to = pick(roots);
    const roll = next();
    if (roll < 0.25) {
      // Single-valued, no constraint (a foreign key column), sometimes to its own type.
      from.navigation.push({ name: names.name(from.scope), target: to, collection: false, nullable: true });
    } else if (roll < 0.45) {
      // A collection with a single-valued partner (the foreign key is on the target's side).
      const many = names.name(from.scope);
      const one = names.name(to.scope);
      from.navigation.push({ name: many, target: to, collection: true, partner: one });
      to.navigation.push({ name: one, target: from, collection: false, partner: many, nullable: true });
    } else if (roll < 0.6) {
      // Many-to-many without partner (a link table).
      from.navigation.push({ name: names.name(from.scope), target: to, collection: true });
    } else if (roll < 0.7 && from !== to) {
      // Many-to-many with a collection partner (one link table for both).
      const there = names.name(from.scope);
      const back = names.name(to.scope);
      from.navigation.push({ name: there, target: to, collection: true, partner: back });
      to.navigation.push({ name: back, target: from, collection: true, partner: there });
    } else {
      // A referential constraint: properties of `from` that hold `to`'s key, sometimes with a collection partner.
      const required = chance(0.3) && from !== to;
      const constraints = to.key.map((k) => {
        const name = names.name(from.scope);
        from.properties.push({ name, type: k.type, nullable: !required, facets: k.facets });
        return [name, k.name] as const;
      });
      const nav = names.name(from.scope);
      const partner = chance(0.5) && from !== to ? names.name(to.scope) : undefined;
      from.navigation.push({ name: nav, target: to, collection: false, constraints, nullable: !required, ...(partner === undefined ? {} : { partner }) });
      if (partner !== undefined) to.navigation.push({ name: partner, target: from, collection: true, partner: nav });
    }
  }
  for (const root of roots) root.set = names.name(global);
  // A recursive hierarchy over a root's own rows, one model in two (a stream of its own, and names
  // drawn last: every other choice of the seed stays as it was before hierarchies were generated).
  const draw = random(seed * 40503 + 7919);
  const single = roots.filter((r) => r.key.length === 1);
  if (on(options.hierarchies) && draw() < 0.5 && single.length > 0) {
    const root = single[Math.floor(draw() * single.length)] as EntityPlan;
    const key = root.key[0] as PropertyPlan;
    const property = names.name(root.scope);
    root.properties.push({ name: property, type: key.type, nullable: true, facets: key.facets });
    const parent = names.name(root.scope);
    root.navigation.push({ name: parent, target: root, collection: false, constraints: [[property, key.name]], nullable: true });
    root.hierarchy = { qualifier: names.name(new Set<string>()), node: key.name, parent };
  }

  const property = (p: PropertyPlan): string => `<Property Name="${escape(p.name)}" Type="${p.type}"${p.nullable ? '' : ' Nullable="false"'}${p.facets}/>`;
  const lines: string[] = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">',
    '<edmx:DataServices>',
    `<Schema Namespace="${namespace}" xmlns="http://docs.oasis-open.org/odata/ns/edm">`,
  ];
  for (const e of enums) {
    lines.push(`<EnumType Name="${e.name}"${e.flags ? ' IsFlags="true"' : ''}>`);
    e.members.forEach((m, i) => lines.push(`<Member Name="${m}" Value="${e.flags ? 1 << i : i}"/>`));
    lines.push('</EnumType>');
  }
  for (const c of complexes) lines.push(`<ComplexType Name="${c.name}">`, ...c.properties.map(property), '</ComplexType>');
  for (const e of entities) {
    lines.push(`<EntityType Name="${e.name}"${e.base === undefined ? '' : ` BaseType="${namespace}.${e.base.name}"`}${e.open ? ' OpenType="true"' : ''}>`);
    if (e.key.length > 0) lines.push('<Key>', ...e.key.map((k) => `<PropertyRef Name="${k.name}"/>`), '</Key>');
    lines.push(...[...e.key, ...e.properties].map(property));
    for (const n of e.navigation) {
      const type = `${namespace}.${n.target.name}`;
      const attributes = [
        `Name="${n.name}"`,
        `Type="${n.collection ? `Collection(${type})` : type}"`,
        ...(n.partner === undefined ? [] : [`Partner="${n.partner}"`]),
        ...(n.containsTarget === true ? ['ContainsTarget="true"'] : []),
        ...(!n.collection && n.nullable === false ? ['Nullable="false"'] : []),
      ];
      if (n.constraints === undefined) lines.push(`<NavigationProperty ${attributes.join(' ')}/>`);
      else
        lines.push(
          `<NavigationProperty ${attributes.join(' ')}>`,
          ...n.constraints.map(([p, r]) => `<ReferentialConstraint Property="${p}" ReferencedProperty="${r}"/>`),
          '</NavigationProperty>',
        );
    }
    if (e.hierarchy !== undefined)
      lines.push(
        `<Annotation Term="Org.OData.Aggregation.V1.RecursiveHierarchy" Qualifier="${e.hierarchy.qualifier}">`,
        `<Record><PropertyValue Property="NodeProperty" PropertyPath="${e.hierarchy.node}"/><PropertyValue Property="ParentNavigationProperty" NavigationPropertyPath="${e.hierarchy.parent}"/></Record>`,
        '</Annotation>',
      );
    lines.push('</EntityType>');
  }
  lines.push('<EntityContainer Name="Container">');
  for (const root of roots) {
    const bindings = root.navigation
      .filter((n) => n.containsTarget !== true)
      .map((n) => `<NavigationPropertyBinding Path="${n.name}" Target="${n.target.set as string}"/>`);
    lines.push(`<EntitySet Name="${root.set as string}" EntityType="${namespace}.${root.name}"${bindings.length === 0 ? '/>' : '>'}`);
    if (bindings.length > 0) lines.push(...bindings, '</EntitySet>');
  }
  lines.push('</EntityContainer>', '</Schema>', '</edmx:DataServices>', '</edmx:Edmx>');
  return `${lines.join('\n')}\n`;
}

/**
 * A random model, deterministic per seed: its CSDL XML ({@link generateModelCsdl}) read by
 * `modelFromCsdlXml`. 3–8 entity types (roots with entity sets, contained and derived types),
 * each seed drawing a different mix of the {@link MODEL_SHAPES}; storable under the storage
 * conventions (`storedTables` and `createSchemaSql` accept it). Rows for it come from
 * `generateStoredData`, queries from `typedQueryArbitrary` on one of its entity sets.
 *
 * @example
 * ```ts
 * const model = generateModel({ seed: 7 });
 * const data = generateStoredData(model, { seed: 1 });
 * const set = [...model.entitySets.keys()][0];
 * ```
 */
export function generateModel(options: ModelGeneratorOptions = {}): Model {
  return modelFromCsdlXml(generateModelCsdl(options));
}

/** {@link generateModel} as a fast-check arbitrary over the seed (shrinks towards seed 0). */
export function modelArbitrary(options: Omit<ModelGeneratorOptions, 'seed'> = {}): fc.Arbitrary<Model> {
  return fc.nat({ max: 2 ** 31 - 1 }).map((seed) => generateModel({ ...options, seed }));
}

/** The shapes a model has (of {@link MODEL_SHAPES}; read from the model, any model). */
export function generatedModelShapes(model: Model): ModelShape[] {
  const found = new Set<ModelShape>();
  const types: StructuredType[] = [];
  for (const type of model.types.values()) {
    if (type.kind === 'enum') found.add(type.isFlags ? 'flag enumeration' : 'enumeration');
    else types.push(type);
  }
  for (const type of types) {
    if (type.kind === 'entity') {
      if (recursiveHierarchies(model, type).length > 0) found.add('recursive hierarchy');
      if (type.open) found.add('open type');
      if (type.baseType !== undefined) found.add('derived type');
      if (type.baseType === undefined && type.key.length > 1) found.add('compound key');
      if (type.baseType === undefined && type.key.length === 1) {
        const key = type.properties.get(type.key[0] as string)?.type;
        if (key?.kind === 'primitive' && ['Edm.Int32', 'Edm.Int64', 'Edm.String', 'Edm.Guid'].includes(key.name)) found.add(`key ${key.name}` as ModelShape);
      }
    }
    for (const p of type.properties.values()) {
      if (p.facets?.maxLength !== undefined) found.add('MaxLength');
      if (p.facets?.precision !== undefined && p.facets.scale !== undefined) found.add('Precision and Scale');
      if (p.type.kind === 'complex') {
        if (p.collection) found.add('collection of complex values');
        // A complex type in a complex type.
        if (type.kind === 'complex') found.add('nested complex type');
      }
      if (p.type.kind === 'primitive') {
        if (p.collection) found.add('collection of primitive values');
        if (p.type.name.startsWith('Edm.Geo')) found.add('spatial property');
        for (const name of ['Edm.Date', 'Edm.DateTimeOffset', 'Edm.Decimal', 'Edm.Boolean', 'Edm.Double'] as const) if (p.type.name === name) found.add(name);
      }
    }
    for (const n of type.navigation.values()) {
      const partner = n.partner === undefined ? undefined : n.target.navigation.get(n.partner);
      if (n.containsTarget === true) {
        found.add('containment');
        if ([...n.target.navigation.values()].some((m) => m.containsTarget === true)) found.add('containment nested two levels');
      } else if (n.constraints.length > 0) found.add('navigation with a referential constraint');
      else if (partner !== undefined && partner.constraints.length > 0) found.add('navigation with a referential constraint');
      else if (!n.collection) {
        if (partner === undefined) found.add('navigation without constraint: single-valued');
      } else if (partner !== undefined && !partner.collection) found.add('navigation without constraint: collection with a single-valued partner');
      else if (partner === undefined) found.add('navigation without constraint: many-to-many without partner');
    }
  }
  return MODEL_SHAPES.filter((s) => found.has(s));
}
