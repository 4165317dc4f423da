/**
 * A model's structure as plain, comparable data: namespace and alias, every type (enum members;
 * base type, key, properties with types, collection and nullability and their restrictions,
 * navigation with targets, partners and constraints) and every entity set (type, bindings,
 * capabilities). Two models are equal for the CSDL round trips when their shapes are equal.
 */
import type { Capabilities, Model, TypeReference } from '../../src/index.js';

const typeName = (type: TypeReference): string => (type.kind === 'primitive' ? type.name : type.type.qualifiedName);

function capabilitiesShape(capabilities: Capabilities): Record<string, unknown> {
  return Object.fromEntries(Object.entries(capabilities).map(([key, value]) => [key, value instanceof Set ? [...value].sort() : value]));
}

export function modelShape(model: Model): unknown {
  const types = [...model.types.values()]
    .sort((a, b) => a.qualifiedName.localeCompare(b.qualifiedName))
    .map((type) =>
      type.kind === 'enum'
        ? {
            name: type.qualifiedName,
            kind: type.kind,
            underlyingType: type.underlyingType,
            isFlags: type.isFlags,
            members: [...type.members].map(([n, v]) => `${n}=${v}`),
          }
        : {
            name: type.qualifiedName,
            kind: type.kind,
            baseType: type.baseType?.qualifiedName,
            derived: type.derivedTypes.map((t) => t.qualifiedName).sort(),
            open: type.open,
            abstract: type.abstract,
            hasStream: type.hasStream,
            key: type.key,
            properties: [...type.properties.values()]
              .map((p) => ({
                name: p.name,
                type: typeName(p.type),
                collection: p.collection,
                nullable: p.nullable,
                filterable: p.filterable,
                sortable: p.sortable,
                selectable: p.selectable,
                facets: p.facets,
                declaredType: p.declaredType,
              }))
              .sort((a, b) => a.name.localeCompare(b.name)),
            navigation: [...type.navigation.values()]
              .map((n) => ({
                name: n.name,
                target: n.target.qualifiedName,
                collection: n.collection,
                nullable: n.nullable,
                partner: n.partner,
                containsTarget: n.containsTarget,
                constraints: n.constraints,
                filterable: n.filterable,
                expandable: n.expandable,
              }))
              .sort((a, b) => a.name.localeCompare(b.name)),
          },
    );
  const entitySets = [...model.entitySets.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((set) => ({ name: set.name, type: set.type.qualifiedName, bindings: [...set.bindings].sort(), capabilities: capabilitiesShape(set.capabilities) }));
  return { namespace: model.namespace, alias: model.alias, types, entitySets };
}
