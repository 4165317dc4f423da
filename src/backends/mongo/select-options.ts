/**
 * Options on `$select` items (OData 4.01, semantic/select-options.ts) on MongoDB: the collection
 * of complex values of a document replaced, in the level's `$addFields`, by its elements that pass
 * `$filter` (`$filter`), sorted by `$orderby` (`$sortArray`, by members of the elements), paged
 * (`$slice`) and narrowed to a nested `$select` (`$map`); null stays null. Refused
 * (`unsupported_feature`): `$count` and `$compute` in the options (the documents have no place for
 * them), nested options, `$orderby` of anything but a member of the elements (or an enumeration
 * or Duration member, which sort by name and text), and a path inside a complex value.
 */
import type { Property, StructuredType } from '../../model/model.js';
import type { BoundQueryOptions, BoundSelect } from '../../semantic/bound-ast.js';
import { MongoExpressionCompiler, elementContext, isDuration, type Frame } from './expression.js';
import { fieldOf, unsupported, type MongoDocument, type MongoMapping } from './mapping.js';

/** The value that replaces the field `field` (the collection of the `$select` item `item`), named `name` inside its expressions. */
export function selectOptionsValue(item: BoundSelect['properties'][number], field: string, mapping: MongoMapping, name: string): unknown {
  const options = item.options as BoundQueryOptions;
  const property = item.path[item.path.length - 1] as Property;
  const refuse = (what: string): never => {
    throw unsupported(`${what} in the options of the $select item '${property.name}'`, { node: item, option: '$select' });
  };
  if (item.path.length !== 1) refuse('a path inside a complex value');
  if (options.count === true) refuse('$count');
  if ((options.compute ?? []).length > 0) refuse('$compute');
  if (options.select.properties.some((nested) => nested.options !== undefined)) refuse('nested options');
  const type = (property.type as { readonly type: StructuredType }).type;
  const frame: Frame = { context: elementContext(type), it: `$$${name}.`, variables: new Map() };
  let array: unknown = `$${field}`;
  if (options.filter !== undefined)
    array = { $filter: { input: array, as: name, cond: new MongoExpressionCompiler(mapping, '$select').holds(options.filter, frame) } };
  if (options.orderBy !== undefined && options.orderBy.length > 0) {
    const sortBy: MongoDocument = {};
    for (const order of options.orderBy) {
      const e = order.expression;
      if (e.kind !== 'path' || e.root.kind !== 'it' || e.steps.length === 0 || e.steps.some((step) => step.kind !== 'property'))
        return refuse('$orderby of anything but a member of the elements');
      if (e.type.kind === 'enum' || isDuration(e.type)) return refuse('$orderby of an enumeration or Duration member');
      let owner = type;
      const names: string[] = [];
      for (const step of e.steps as readonly { readonly property: Property }[]) {
        names.push(fieldOf(owner, step.property, mapping));
        if (step.property.type.kind === 'complex') owner = step.property.type.type;
      }
      const key = names.join('.');
      // MongoDB sorts null and missing first ascending, as OData does; a later key ties only what an earlier one does.
      if (!(key in sortBy)) sortBy[key] = order.direction === 'desc' ? -1 : 1;
    }
    array = { $sortArray: { input: array, sortBy } };
  }
  if (options.top === 0) array = [];
  else if (options.top !== undefined || (options.skip ?? 0) > 0) {
    const skip = options.skip ?? 0;
    array = { $slice: [array, skip, options.top ?? { $max: [{ $size: array }, 1] }] };
  }
  if (!options.select.all) {
    const fields: MongoDocument = {};
    for (const selected of options.select.properties) {
      if (selected.path.length !== 1) refuse('a nested $select path inside a complex value');
      const member = fieldOf(type, selected.path[0] as Property, mapping);
      fields[member] = `$$${name}.${member}`;
    }
    array = { $map: { input: array, as: name, in: fields } };
  }
  return { $cond: [{ $isArray: `$${field}` }, array, `$${field}`] };
}
