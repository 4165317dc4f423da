/**
 * `bindQuery`: checks a parsed query against one entity set of a model and the validation
 * settings, and returns the bound query that backends consume.
 */
import { ODataError, type ODataErrorCode } from '../errors/odata-error.js';
import {
  derivesFrom,
  findType,
  type Capabilities,
  type EntitySet,
  type Model,
  type NavigationProperty,
  type Property,
  type StructuredType,
} from '../model/model.js';
import { PROBE_NAME, probing, reportProbe } from './probe.js';
import type { ComputeItem, ExpandItem, Expression, ODataQuery, OrderByItem, QueryOptions, SelectItem, Span } from '../syntax/ast.js';
import { navigationTarget } from '../model/navigation.js';
import { parseQuery } from '../syntax/query-string.js';
import { bindSearch } from './bind-search.js';
import type {
  BoundApply,
  BoundComputeItem,
  BoundExpandItem,
  BoundExpression,
  BoundOrderByItem,
  BoundQuery,
  BoundQueryOptions,
  BoundSelect,
} from './bound-ast.js';
import { bindApply } from './apply/bind-apply.js';
import { ExpressionBinder, type Purpose } from './bind-expression.js';
import { selectOptionsType } from './select-options.js';
import { madeEntity, type MadeEntity } from './apply/output-type.js';
import { notAllowed, resolveSettings, unknownEntitySet, type BindSettings, type QueryOptionName, type ResolvedSettings } from './settings.js';
import { UNTYPED, isOrderable, isUntyped, typeName } from './types.js';

/** OData.net's SelectBinder_MultiLevelPathInSelect. */
const MULTI_LEVEL_SELECT =
  'Found a path with multiple navigation properties or a bad complex property path in a select clause. Please reword your query such that each level of select or expand only contains either TypeSegments or Properties.';

interface Level {
  readonly type: StructuredType;
  readonly set: EntitySet | undefined;
  readonly capabilities: Capabilities | undefined;
  /** `$expand` nesting depth of these options (0 for the request). */
  readonly depth: number;
  /** The option whose text the spans of these options point into. */
  readonly option: (name: string) => string;
  /** After an aggregation: the entity type the rows came from (see `ExpressionContext.aggregatedFrom`). */
  readonly aggregatedFrom?: StructuredType;
}

/**
 * An OData simple identifier (CSDL 17.2, ABNF `odataIdentifier`): a letter or `_`, then up to 127
 * letters, digits, `_` and combining marks. The lexer lets any non-ASCII character into a name.
 */
const ODATA_IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Cf}]{0,127}$/u;

/** The computed properties of one level: bound, and as written by alias (for references to them). */
interface Computed {
  readonly items: readonly BoundComputeItem[];
  readonly byName: ReadonlyMap<string, ComputeItem>;
}

function fail(code: ODataErrorCode, reason: string, option: string | undefined, position?: number, status = 400): never {
  throw new ODataError({
    code,
    reason,
    status,
    appendLocation: false,
    ...(option === undefined ? {} : { option }),
    ...(position === undefined ? {} : { position }),
  });
}

/**
 * Binds a query to an entity set: resolves every name against the model, types every
 * expression, and enforces the model's capabilities and the validation settings.
 *
 * @param query a parsed query, or a query string / `URLSearchParams` to parse first
 * @throws {ODataError} with status 400 for a query that is not valid for the set; status 500
 *   (`unknown_entity_set`) when `settings.entitySet` is not in the model
 * @example
 * ```ts
 * const bound = bindQuery("$filter=name eq 'Pump'&$top=10", { model, entitySet: 'assets' });
 * bound.filter?.type; // { kind: 'primitive', name: 'Edm.Boolean' }
 * ```
 */
export function bindQuery(query: ODataQuery | string | URLSearchParams, settings: BindSettings): BoundQuery {
  const set = settings.model.entitySets.get(settings.entitySet);
  if (set === undefined) throw unknownEntitySet(settings.entitySet);
  return bindQueryToSet(query, settings, set);
}

/**
 * {@link bindQuery} for an entity set given as such: one of the model's, or the implicit set of a
 * containment navigation property (`containedSet`), which has no name in the model.
 */
export function bindQueryToSet(query: ODataQuery | string | URLSearchParams, settings: BindSettings, set: EntitySet): BoundQuery {
  const parsed = typeof query === 'string' || query instanceof URLSearchParams ? parseQuery(query, settings.parse) : query;
  const resolved = resolveSettings(settings);
  const binder = new QueryBinder(settings.model, resolved, parsed.aliases);
  checkAllowedOptions(parsed, resolved);
  const maxTop = effectiveMaxTop(resolved, set.capabilities);
  const options = binder.options(parsed, {
    type: set.type,
    set,
    capabilities: set.capabilities,
    depth: 0,
    option: (name) => `$${name}`,
  });
  return { kind: 'boundQuery', entitySet: set, maxTop, ...options };
}

function effectiveMaxTop(settings: ResolvedSettings, capabilities: Capabilities | undefined): number {
  return Math.min(settings.maxTop, capabilities?.maxTop ?? Number.POSITIVE_INFINITY);
}

function checkAllowedOptions(query: ODataQuery, settings: ResolvedSettings): void {
  const allowed = settings.allowedQueryOptions;
  if (allowed === undefined) return;
  const present: [QueryOptionName, unknown][] = [
    ['filter', query.filter],
    ['orderby', query.orderBy],
    ['select', query.select],
    ['expand', query.expand],
    ['top', query.top],
    ['skip', query.skip],
    ['count', query.count],
    ['search', query.search],
    ['compute', query.compute],
    ['apply', query.apply],
  ];
  // (The service's own paging options at the request's level: checked as the client wrote them.)
  const service = settings.pagedByService === 0 ? new Set<QueryOptionName>(['top', 'skip', 'orderby']) : undefined;
  for (const [name, value] of present) if (value !== undefined && !allowed.has(name) && service?.has(name) !== true) throw notAllowed(name);
}

class QueryBinder {
  constructor(
    private readonly model: Model,
    private readonly settings: ResolvedSettings,
    private readonly aliases: Readonly<Record<string, Expression>> | undefined,
  ) {}

  private expressionBinder(level: Level, option: string, purpose: Purpose, computed: Computed | undefined): ExpressionBinder {
    return new ExpressionBinder({
      ...(purpose === 'orderby' && level.depth === this.settings.pagedByService ? { serviceOrder: true } : {}),
      computed: computed?.byName,
      model: this.model,
      settings: this.settings,
      option,
      offset: 0,
      purpose,
      it: level.type,
      entitySet: level.set,
      capabilities: level.capabilities,
      aliases: this.aliases,
      ...(level.aggregatedFrom === undefined ? {} : { aggregatedFrom: level.aggregatedFrom }),
    });
  }

  options(query: QueryOptions, outer: Level): BoundQueryOptions {
    // $apply runs first; the other options see the rows it gives (Data Aggregation 3.3).
    const apply = query.apply === undefined ? undefined : this.apply(query.apply, outer);
    const level: Level =
      apply === undefined
        ? outer
        : apply.entity
          ? { ...outer, type: apply.output }
          : { type: apply.output, set: undefined, capabilities: undefined, depth: outer.depth, option: outer.option, aggregatedFrom: outer.type };
    const capabilities = level.capabilities;
    const where = level.set === undefined ? `type '${level.type.name}'` : `entity set '${level.set.name}'`;
    if (query.search !== undefined && capabilities !== undefined && !capabilities.searchable) {
      fail('query_option_not_supported', `The query option '$search' is not supported by the ${where}.`, level.option('search'), query.search.span.start);
    }
    if (query.count !== undefined && query.count && capabilities !== undefined && !capabilities.countable) {
      fail('not_countable', `The ${where} cannot be counted: $count is not supported.`, level.option('count'));
    }
    // $compute first (PROT 11.2.1): its properties are usable in $filter, $orderby and $select.
    const computed = query.compute === undefined ? undefined : this.compute(query.compute, level);
    const top = this.limit('Top', query.top, capabilities?.topSupported ?? true, effectiveMaxTop(this.settings, capabilities), level, 'top');
    const skip = this.limit('Skip', query.skip, capabilities?.skipSupported ?? true, this.settings.maxSkip ?? Number.POSITIVE_INFINITY, level, 'skip');
    const filter = query.filter === undefined ? undefined : this.expressionBinder(level, level.option('filter'), 'filter', computed).bind(query.filter, true);
    const orderBy = query.orderBy === undefined ? undefined : this.orderBy(query.orderBy, level, computed);
    const expandedNames = new Set<string>();
    const made: MadeSelection[] = [];
    const expand = this.expand(query.expand ?? [], level, expandedNames, made);
    const dynamic: BoundComputeItem[] = [];
    const chosen = this.select(query.select, level, computed, dynamic);
    // An alias of join, addnested or rolluprecursive expanded (examples 39, 71, 91): returned with the row, selected or not;
    // an entity $apply made, expanded with options: returned by its expansion instead (examples 87, 107).
    const replaced = expand.flatMap((item) => (item.made === undefined ? [] : [item.made]));
    const selected = withoutReplaced(withMade(chosen, made, level.type), replaced, level.type);
    // Dynamic properties in $select are returned as computed values are (and compiled as they are).
    const compute = dynamic.length === 0 ? computed?.items : [...(computed?.items ?? []), ...dynamic];
    const select = dynamic.length === 0 ? selected : { ...selected, computed: [...(selected.computed ?? []), ...dynamic.map((d) => d.name)] };
    return {
      entityType: outer.type,
      ...(apply === undefined ? {} : { apply }),
      ...(compute === undefined ? {} : { compute }),
      ...(filter === undefined ? {} : { filter }),
      ...(query.search === undefined ? {} : { search: bindSearch(query.search, level.type) }),
      ...(orderBy === undefined ? {} : { orderBy }),
      select,
      expand,
      ...(top === undefined ? {} : { top }),
      ...(skip === undefined ? {} : { skip }),
      ...(query.count === undefined ? {} : { count: query.count }),
    };
  }

  private apply(transformations: NonNullable<QueryOptions['apply']>, level: Level): BoundApply {
    const option = level.option('apply');
    if (level.capabilities !== undefined && !level.capabilities.applySupported) {
      fail(
        'query_option_not_supported',
        `The query option '$apply' is not supported by the entity set '${level.set?.name ?? level.type.name}'.`,
        option,
        transformations[0]?.span.start,
      );
    }
    return bindApply(transformations, level.type, level.set, {
      settings: this.settings,
      option,
      model: this.model,
      binder: (input, purpose, rollupNode) =>
        new ExpressionBinder({
          model: this.model,
          settings: this.settings,
          option,
          offset: 0,
          purpose,
          it: input.type,
          entitySet: input.set,
          capabilities: input.capabilities,
          ...(input.entity ? {} : { aggregatedFrom: level.type }),
          ...(rollupNode === undefined ? {} : { rollupNode }),
          aliases: this.aliases,
        }),
    });
  }

  /** `$top`/`$skip` against the limit, compared exactly (values beyond 2^53 arrive as bigint). */
  private limit(
    name: 'Top' | 'Skip',
    value: number | bigint | undefined,
    supported: boolean,
    max: number,
    level: Level,
    option: 'top' | 'skip',
  ): number | undefined {
    if (value === undefined) return undefined;
    // The service's own page (a page and one more, its offset): checked as the client wrote it, before.
    if (level.depth === this.settings.pagedByService) return typeof value === 'bigint' ? Number(value) : value;
    if (!supported) fail('query_option_not_supported', `The query option '$${option}' is not supported by this entity set.`, level.option(option));
    const exceeds = typeof value === 'bigint' ? max !== Number.POSITIVE_INFINITY && value > BigInt(max) : value > max;
    if (exceeds || (typeof value === 'bigint' && value > BigInt(Number.MAX_SAFE_INTEGER))) {
      const shownMax = max === Number.POSITIVE_INFINITY ? Number.MAX_SAFE_INTEGER : max;
      fail(
        name === 'Top' ? 'top_limit_exceeded' : 'skip_limit_exceeded',
        `The limit of '${shownMax}' for ${name} query has been exceeded. The value from the incoming request is '${value}'.`,
        level.option(option),
      );
    }
    return Number(value);
  }

  /**
   * `$compute` (URL 5.1.5): each expression bound against the level's type, its alias a simple
   * identifier unlike every property of the type and every other alias. Values of entity,
   * complex, collection and untyped types are refused: every backend returns the rest.
   */
  private compute(items: readonly ComputeItem[], level: Level): Computed {
    const option = level.option('compute');
    const byName = new Map<string, ComputeItem>();
    const key = (name: string): string => (this.settings.caseInsensitive ? name.toLowerCase() : name);
    for (const item of items) {
      const at = item.span.end - item.alias.length;
      if (!ODATA_IDENTIFIER.test(item.alias))
        fail('syntax_error', `The $compute alias '${item.alias}' is not an OData identifier (a letter or '_', then letters, digits or '_').`, option, at);
      const member = this.findMember(level.type, item.alias);
      if (member !== undefined) {
        fail(
          'alias_conflict',
          `The $compute alias '${item.alias}' is the name of the ${member.kind === 'navigation' ? 'navigation ' : ''}property '${member.name}' of type '${level.type.name}'.`,
          option,
          at,
        );
      }
      const other = byName.get(key(item.alias));
      if (other !== undefined) fail('alias_conflict', `The $compute alias '${item.alias}' is used twice (first for '${other.alias}').`, option, at);
      byName.set(key(item.alias), item);
    }
    const computed: Computed = { items: [], byName };
    const bound = items.map((item): BoundComputeItem => {
      const expression = this.expressionBinder(level, option, 'compute', computed).bind(item.expression, false);
      const type = expression.type;
      if (type.kind !== 'primitive' && type.kind !== 'enum' && type.kind !== 'null') {
        fail(
          'unsupported_feature',
          `A computed property of type '${typeName(type)}' is not supported: only primitive and enumeration values are.`,
          option,
          item.expression.span.start,
        );
      }
      if (isUntyped(type) || (type.kind === 'primitive' && type.name === 'Edm.Stream')) {
        fail(
          'unsupported_feature',
          `A computed property of type '${typeName(type)}' is not supported: only primitive and enumeration values are.`,
          option,
          item.expression.span.start,
        );
      }
      return { name: item.alias, expression, type, span: item.span };
    });
    return { items: bound, byName };
  }

  private orderBy(items: readonly OrderByItem[], level: Level, computed: Computed | undefined): BoundOrderByItem[] {
    const option = level.option('orderby');
    // (The service's key order after the client's clauses does not count against their limit.)
    if (items.length > this.settings.maxOrderByNodeCount && level.depth !== this.settings.pagedByService) {
      fail(
        'orderby_clause_limit_exceeded',
        `The number of clauses in $orderby query option exceeded the maximum number allowed. The maximum number of $orderby clauses allowed is ${this.settings.maxOrderByNodeCount}.`,
        option,
        items[this.settings.maxOrderByNodeCount]?.span.start,
      );
    }
    return items.map((item) => {
      const expression = this.expressionBinder(level, option, 'orderby', computed).bind(item.expression, false);
      if (!isOrderable(expression.type) && expression.type.kind !== 'null') {
        fail('type_mismatch', `The $orderby expression is of type '${typeName(expression.type)}', whose values cannot be sorted.`, option, item.span.start);
      }
      return { expression, direction: item.direction };
    });
  }

  private findMember(type: StructuredType, name: string): Property | NavigationProperty | undefined {
    const exact = type.properties.get(name) ?? type.navigation.get(name);
    if (exact !== undefined || !this.settings.caseInsensitive) return exact;
    const lower = name.toLowerCase();
    return [...type.properties.values(), ...type.navigation.values()].find((member) => member.name.toLowerCase() === lower);
  }

  /** A type-cast segment of a `$select`/`$expand` path: a type of the model that derives from `from`. */
  private castSegment(name: string, from: StructuredType, option: string, position: number): StructuredType {
    const cast = findType(this.model, name);
    if (cast === undefined) fail('unknown_type', `The type '${name}' is not defined in the model.`, option, position);
    if (cast.kind === 'enum' || cast.kind !== from.kind || !derivesFrom(cast, from)) {
      fail('type_mismatch', `Encountered invalid type cast. '${cast.qualifiedName}' is not assignable from '${from.qualifiedName}'.`, option, position);
    }
    return cast;
  }

  private select(items: readonly SelectItem[] | undefined, level: Level, computed: Computed | undefined, dynamic: BoundComputeItem[]): BoundSelect {
    // Without $select, every computed property is returned (PROT 11.2.5.3: SHOULD; see DEVIATIONS).
    if (items === undefined)
      return computed === undefined
        ? { all: true, properties: [], navigation: [] }
        : { all: true, properties: [], navigation: [], computed: computed.items.map((item) => item.name) };
    const option = level.option('select');
    let all = false;
    const properties: { path: Property[]; span: Span; options?: BoundQueryOptions }[] = [];
    const navigation: NavigationProperty[] = [];
    const selectedComputed = computed === undefined ? undefined : new Set<string>();
    for (const item of items) {
      if (item.star !== undefined) {
        if (item.star !== '*') {
          const namespace = item.star.namespace;
          if (namespace !== this.model.namespace && namespace !== this.model.alias) {
            fail('unknown_type', `The namespace '${namespace}' is not defined in the model.`, option, item.span.start);
          }
        }
        if (item.path.length > 0) fail('unsupported_feature', `'*' after a path is not supported in $select`, option, item.span.start);
        all = true;
        continue;
      }
      if (item.parameters !== undefined) fail('unsupported_feature', `Operations are not supported in $select`, option, item.span.start);
      let type: StructuredType = level.type;
      const path: Property[] = [];
      for (const [index, segment] of item.path.entries()) {
        if (segment.kind === 'annotation') fail('unsupported_feature', `Annotations are not supported in $select`, option, segment.span.start);
        const last = index === item.path.length - 1;
        if (segment.name === PROBE_NAME && probing())
          reportProbe({ context: 'select', type, first: index === 0, ...(computed === undefined ? {} : { computed: computed.byName }) });
        const member = this.findMember(type, segment.name);
        const computedItem =
          member === undefined && index === 0 && computed !== undefined
            ? (computed.byName.get(segment.name) ?? (this.settings.caseInsensitive ? computed.byName.get(segment.name.toLowerCase()) : undefined))
            : undefined;
        if (computedItem !== undefined) {
          if (!last)
            fail('type_mismatch', `A $select path cannot continue after the computed property '${computedItem.alias}'.`, option, item.path[1]?.span.start);
          selectedComputed?.add(computedItem.alias);
          break;
        }
        if (member === undefined && segment.name.includes('.')) {
          type = this.castSegment(segment.name, type, option, segment.span.start);
          if (last) fail('unsupported_feature', `A $select item cannot end with a type cast`, option, segment.span.start);
          continue;
        }
        if (member === undefined && index === 0 && last && type.open) {
          // A dynamic property (PROT 11.2.5.1): returned as a value computed under its own name (semantic/dynamic-values.ts).
          if (!dynamic.some((d) => d.name === segment.name)) dynamic.push(selectedDynamic(segment.name, type, segment.span));
          break;
        }
        if (member === undefined)
          fail('unknown_property', `Could not find a property named '${segment.name}' on type '${type.name}'.`, option, segment.span.start);
        const selectable =
          member.kind === 'navigation' ||
          (member.selectable && (path.length > 0 || level.capabilities === undefined || !level.capabilities.nonSelectableProperties.has(member.name)));
        if (!selectable) fail('not_selectable', `The property '${member.name}' cannot be used in the $select query option.`, option, segment.span.start);
        if (member.kind === 'navigation') {
          if (!last || path.length > 0) fail('type_mismatch', MULTI_LEVEL_SELECT, option, segment.span.start);
          navigation.push(member);
          break;
        }
        path.push(member);
        if (!last) {
          if (member.type.kind !== 'complex' || member.collection) fail('type_mismatch', MULTI_LEVEL_SELECT, option, segment.span.start);
          type = member.type.type;
        }
      }
      if (item.options !== undefined && path.length === 0)
        fail('invalid_nested_option', `Options on a $select item need a collection-valued structural property.`, option, item.options.span.start);
      if (path.length > 0 && item.options === undefined) properties.push({ path, span: item.span });
      else if (path.length > 0 && item.options !== undefined) {
        // Options of a collection of complex values: bound as a request's, against the complex type (select-options.ts).
        const elements = selectOptionsType(path[path.length - 1] as Property, item.options, option);
        const nested = this.options(item.options, { type: elements, set: undefined, capabilities: undefined, depth: level.depth, option: () => option });
        properties.push({ path, span: item.span, options: nested });
      }
    }
    for (const item of properties) {
      // Options under a complex value also returned whole would change that value (select-options.ts).
      if (item.options === undefined || item.path.length === 1) continue;
      const whole = all || properties.some((other) => other.path.length < item.path.length && other.path.every((p, i) => item.path[i] === p));
      if (whole)
        fail('unsupported_feature', `Options on a $select path inside a complex value that is also selected whole are not supported.`, option, item.span.start);
    }
    if (computed === undefined) return { all, properties, navigation };
    return {
      all,
      properties,
      navigation,
      computed: computed.items.filter((item) => all || selectedComputed?.has(item.name) === true).map((item) => item.name),
    };
  }

  /**
   * `made` collects the structured properties `$apply` made (the alias of `join`, `outerjoin`,
   * `addnested` or `rolluprecursive`, Data Aggregation 3.4.3, 3.5.2, 6.3) that are expanded
   * without options: the spec expands them as navigation properties; here they are values of the
   * row, returned whole.
   */
  private expand(items: readonly ExpandItem[], level: Level, expanded: Set<string>, made: MadeSelection[] = []): BoundExpandItem[] {
    const option = level.option('expand');
    const result: BoundExpandItem[] = [];
    for (const item of items) {
      if (item.target === '$value') fail('unsupported_feature', `'$value' is not supported in $expand`, option, item.span.start);
      const navigations: NavigationProperty[] = [];
      if (item.target === '*') {
        if (item.path.length > 0) fail('unsupported_feature', `'*' after a path is not supported in $expand`, option, item.span.start);
        for (const navigation of level.type.navigation.values()) if (this.expandable(level, navigation)) navigations.push(navigation);
      } else {
        // A path: type casts, then one navigation property (paths through complex properties are not supported).
        let type = level.type;
        let member: Property | NavigationProperty | undefined;
        for (const [index, segment] of item.path.entries()) {
          if (segment.kind === 'annotation') fail('unsupported_feature', `Annotations are not supported in $expand`, option, segment.span.start);
          if (segment.name === PROBE_NAME && probing()) reportProbe({ context: 'expand', type, first: index === 0 });
          const found = this.findMember(type, segment.name);
          if (found === undefined && segment.name.includes('.')) {
            type = this.castSegment(segment.name, type, option, segment.span.start);
            continue;
          }
          if (found === undefined)
            fail('unknown_property', `Could not find a property named '${segment.name}' on type '${type.name}'.`, option, segment.span.start);
          if (index !== item.path.length - 1) {
            if (found.kind === 'navigation')
              fail(
                'type_mismatch',
                `The navigation property '${found.name}' must be the last segment of an $expand path; expand it with nested options instead.`,
                option,
                item.path[index + 1]?.span.start,
              );
            fail('unsupported_feature', `Paths through complex properties are not supported in $expand`, option, segment.span.start);
          }
          member = found;
        }
        if (member === undefined) fail('type_mismatch', `An $expand path must end with a navigation property`, option, item.span.start);
        if (member.kind !== 'navigation' && item.path.length === 1 && this.madeByApply(type, member)) {
          if (expanded.has(member.name)) fail('syntax_error', `The property '${member.name}' is expanded more than once.`, option, item.span.start);
          expanded.add(member.name);
          const entity = madeEntity(member);
          if (entity !== undefined && !member.collection && item.suffix !== '$count' && !selectsOnly(item, member)) {
            result.push(this.madeExpansion(member, entity, item, level, option));
            continue;
          }
          made.push(...this.madeSelection(member, item, level, option));
          continue;
        }
        if (member.kind !== 'navigation')
          fail(
            'type_mismatch',
            `Property '${member.name}' on type '${type.name}' is not a navigation property, so it cannot be expanded.`,
            option,
            item.span.start,
          );
        if (!this.expandable(level, member))
          fail('not_expandable', `The property '${member.name}' cannot be used in the $expand query option.`, option, item.span.start);
        navigations.push(member);
      }
      for (const navigation of navigations) {
        if (expanded.has(navigation.name))
          fail('syntax_error', `The navigation property '${navigation.name}' is expanded more than once.`, option, item.span.start);
        expanded.add(navigation.name);
        result.push(this.expandOne(navigation, item, level, option));
      }
    }
    return result;
  }

  /**
   * What `$expand` of a value `$apply` made selects: the value whole, or with a nested `$select` of
   * its own properties (`$expand=Customer($select=Name,ID)`, examples 71 and 103) those paths into
   * it. Other nested options are refused.
   */
  private madeSelection(member: Property, item: ExpandItem, level: Level, option: string): MadeSelection[] {
    if (item.suffix !== undefined)
      fail(
        'unsupported_feature',
        `'${item.suffix}' in $expand of '${member.name}', which $apply made a value of the row, is not supported`,
        option,
        item.span.start,
      );
    if (member.collection && item.options !== undefined && !(item.options.select?.some((nested) => nested.star === '*') ?? false)) {
      // A collection (`nest`, `addnested`): its options apply to its items as a $select item's do
      // (`$expand=Kids($filter=…;$top=2;$select=Name)` is `$select=Kids($filter=…;$top=2;$select=Name)`).
      for (const [name, given] of [
        ['$expand', item.options.expand],
        ['$apply', item.options.apply],
        ['$levels', item.options.levels],
      ] as const)
        if (given !== undefined)
          fail('unsupported_feature', `${name} in $expand of '${member.name}', a collection $apply made, is not supported`, option, item.span.start);
      const elements = selectOptionsType(member, item.options, option);
      const nested = this.options(item.options, { type: elements, set: undefined, capabilities: undefined, depth: level.depth, option: () => option });
      return [{ path: [member], span: item.span, options: nested }];
    }
    const { kind: _kind, span: _span, select, ...others } = item.options ?? { kind: 'nestedOptions', span: item.span };
    if (Object.values(others).some((value) => value !== undefined))
      fail(
        'unsupported_feature',
        `Options other than $select in $expand of '${member.name}', which $apply made a value of the row, are not supported`,
        option,
        item.span.start,
      );
    if (select === undefined || select.some((nested) => nested.star === '*')) return [{ path: [member], span: item.span }];
    const type = (member.type as { readonly type: StructuredType }).type;
    return select.map((nested) => {
      const [segment, more] = nested.path;
      const property = segment?.kind === 'member' ? this.findMember(type, segment.name) : undefined;
      if (property === undefined || property.kind !== 'property' || more !== undefined || nested.star !== undefined || nested.options !== undefined)
        fail('unsupported_feature', `Only properties of '${member.name}' may be selected in its $expand`, option, nested.span.start);
      return { path: [member, property], span: nested.span };
    });
  }

  /**
   * `$expand` with options (`$ref`, nested `$expand`, `$filter`, …) of an entity `$apply` wrote into
   * the row (`MadeEntity`): bound as the expansion of a single-valued navigation property of its
   * name to the entity of its set that its key identifies.
   */
  private madeExpansion(member: Property, entity: MadeEntity, item: ExpandItem, level: Level, option: string): BoundExpandItem {
    const navigation: NavigationProperty = {
      kind: 'navigation',
      name: member.name,
      target: entity.type,
      collection: false,
      nullable: true,
      constraints: [],
      partner: undefined,
      filterable: false,
      expandable: true,
    };
    return { ...this.expandOne(navigation, item, level, option, entity.set), made: member };
  }

  /** Whether `property` of `type` is a structured value `$apply` made (no property of the model's own type). */
  private madeByApply(type: StructuredType, property: Property): boolean {
    if (property.type.kind !== 'entity' && property.type.kind !== 'complex') return false;
    const declared = this.model.types.get(type.qualifiedName);
    return declared === undefined || declared.kind === 'enum' || declared.properties.get(property.name) !== property;
  }

  private expandable(level: Level, navigation: NavigationProperty): boolean {
    const capabilities = level.capabilities;
    return navigation.expandable && (capabilities === undefined || (capabilities.expandable && !capabilities.nonExpandableProperties.has(navigation.name)));
  }

  private expandOne(navigation: NavigationProperty, item: ExpandItem, level: Level, option: string, target?: EntitySet): BoundExpandItem {
    const nested = item.options;
    const requested = nested?.levels === undefined ? 1 : nested.levels === 'max' ? this.settings.maxExpansionDepth - level.depth : nested.levels;
    const depth = level.depth + requested;
    if (depth > this.settings.maxExpansionDepth) {
      fail(
        'expansion_depth_exceeded',
        `The request includes a $expand path which is too deep. The maximum depth allowed is ${this.settings.maxExpansionDepth}. To increase the limit, set the 'maxExpansionDepth' setting.`,
        option,
        item.span.start,
      );
    }
    const entitySet = target ?? navigationTarget(this.model, level.set, navigation);
    const child: Level = {
      type: navigation.target,
      set: entitySet,
      capabilities: entitySet?.capabilities,
      depth: level.depth + 1,
      option: () => option,
    };
    const form = item.suffix === '$ref' ? '$ref' : item.suffix === '$count' ? '$count' : 'entities';
    let options = this.options(nested ?? {}, child);
    // `$levels=n` expands the same (recursive) navigation property n levels deep.
    if (requested > 1) {
      if (!navigation.target.navigation.has(navigation.name)) {
        fail(
          'type_mismatch',
          `$levels needs a recursive navigation property, but '${navigation.name}' does not lead back to its own type.`,
          option,
          item.span.start,
        );
      }
      const deeper = this.expandOne(
        navigation,
        { ...item, options: { ...(nested ?? { kind: 'nestedOptions', span: item.span }), levels: requested - 1 } },
        { ...child },
        option,
      );
      options = { ...options, expand: [...options.expand, deeper] };
    }
    return { navigation, entitySet, form, options };
  }
}

/** A dynamic property named in `$select`, as a computed item: its path, untyped, under its own name. */
function selectedDynamic(name: string, owner: StructuredType, span: Span): BoundComputeItem {
  const expression: BoundExpression = { kind: 'path', root: { kind: 'it' }, steps: [{ kind: 'dynamic', name, owner, span }], type: UNTYPED, span };
  return { name, expression, type: UNTYPED, span };
}

/** Whether an `$expand` item has no options but a `$select` of plain properties (what {@link withMade} selects into a value). */
function selectsOnly(item: ExpandItem, member: Property): boolean {
  if (item.suffix !== undefined) return false;
  const { kind: _kind, span: _span, select, ...others } = item.options ?? { kind: 'nestedOptions', span: item.span };
  if (Object.values(others).some((value) => value !== undefined)) return false;
  const type = (member.type as { readonly type: StructuredType }).type;
  return (select ?? []).every((nested) => {
    const [segment, more] = nested.path;
    if (nested.star === '*' && segment === undefined) return true;
    return segment?.kind === 'member' && more === undefined && nested.star === undefined && nested.options === undefined && type.properties.has(segment.name);
  });
}

/**
 * `select` without the entities `$apply` made that `$expand` returns with options (`replaced`):
 * their expansions write them.
 */
function withoutReplaced(select: BoundSelect, replaced: readonly Property[], type: StructuredType): BoundSelect {
  if (replaced.length === 0) return select;
  const span = { start: 0, end: 0 };
  const kept = select.properties.filter((item) => !replaced.includes(item.path[0] as Property));
  // Without $select (or with `*`): every other property, those listed with options as listed.
  const properties = select.all
    ? [
        ...[...type.properties.values()]
          .filter((p) => p.selectable && !replaced.includes(p) && !kept.some((item) => item.path.length === 1 && item.path[0] === p))
          .map((p) => ({ path: [p], span })),
        ...kept,
      ]
    : kept;
  return { ...select, all: false, properties };
}

/**
 * `select` with the values `$apply` made that `$expand` names (`made`: each whole, or paths into
 * it): added where `$select` leaves them out; without `$select` (every property), the value's
 * own paths replace it whole.
 */
function withMade(select: BoundSelect, made: readonly MadeSelection[], type: StructuredType): BoundSelect {
  if (made.length === 0) return select;
  const same = (a: readonly Property[], b: readonly Property[]): boolean => a.length === b.length && a.every((p, k) => p === b[k]);
  // Paths into a value, or a collection with its items' options: they replace the value whole.
  const narrowing = made.filter((m) => m.path.length > 1 || m.options !== undefined);
  if (select.all) {
    const narrowed = new Set(narrowing.map((m) => m.path[0]));
    if (narrowed.size === 0) return select;
    const others = [...type.properties.values()].filter((p) => p.selectable && !narrowed.has(p)).map((p) => ({ path: [p], span: made[0]!.span }));
    return { ...select, all: false, properties: [...others, ...narrowing] };
  }
  const withOptions = new Set(made.filter((m) => m.options !== undefined).map((m) => m.path[0]));
  const kept = select.properties.filter((p) => !(p.path.length === 1 && withOptions.has(p.path[0] as Property) && p.options === undefined));
  const missing = made.filter(
    ({ path, options }) => options !== undefined || !kept.some((p) => same(p.path, path) || (p.path.length === 1 && p.path[0] === path[0])),
  );
  return missing.length === 0 && kept.length === select.properties.length ? select : { ...select, properties: [...kept, ...missing] };
}

/** A path `$expand` of a value `$apply` made selects: the value, a path into it, or a collection with its items' options. */
interface MadeSelection {
  readonly path: Property[];
  readonly span: Span;
  readonly options?: BoundQueryOptions;
}
