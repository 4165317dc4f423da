/**
 * Custom aggregates and custom aggregation methods as a model declares them (the Aggregation
 * vocabulary's `CustomAggregate`, `ApplySupported`/`ApplySupportedDefaults` with
 * `CustomAggregationMethods`), read from CSDL XML, CSDL JSON and `defineModel`, and a CSDL XML
 * service that declares them answering `$apply` end to end with the host's definitions.
 */
import { describe, expect, it } from 'vitest';
import {
  csdlJsonFromModel,
  declaredCustomAggregates,
  declaredCustomAggregationMethods,
  defineModel,
  modelFromCsdl,
  modelFromCsdlXml,
  type EntitySet,
  type Model,
} from '../../src/index.js';
import { createODataHandler, memorySource } from '../../src/server/index.js';

const XML = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
  <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Aggregation.V1.xml">
    <edmx:Include Namespace="Org.OData.Aggregation.V1" Alias="Agg" />
  </edmx:Reference>
  <edmx:DataServices>
    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="com.example.shop" Alias="Shop">
      <EntityType Name="Order">
        <Key><PropertyRef Name="ID" /></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false" />
        <Property Name="Region" Type="Edm.String" />
        <Property Name="Amount" Type="Edm.Decimal" Scale="variable" />
        <Property Name="Quantity" Type="Edm.Int32" />
        <Annotation Term="Agg.CustomAggregate" Qualifier="Revenue" String="Edm.Decimal" />
      </EntityType>
      <EntityType Name="RushOrder" BaseType="Shop.Order">
        <Property Name="Fee" Type="Edm.Decimal" Scale="variable" />
      </EntityType>
      <EntityContainer Name="Shop">
        <EntitySet Name="Orders" EntityType="Shop.Order">
          <Annotation Term="Org.OData.Aggregation.V1.CustomAggregate" Qualifier="Units" String="Edm.Int64" />
          <Annotation Term="Agg.ApplySupported">
            <Record>
              <PropertyValue Property="CustomAggregationMethods">
                <Collection><String>Shop.median</String></Collection>
              </PropertyValue>
            </Record>
          </Annotation>
        </EntitySet>
        <EntitySet Name="RushOrders" EntityType="Shop.RushOrder" />
        <Annotation Term="Agg.ApplySupportedDefaults">
          <Record>
            <PropertyValue Property="CustomAggregationMethods">
              <Collection><String>Shop.concat</String></Collection>
            </PropertyValue>
          </Record>
        </Annotation>
      </EntityContainer>
      <Annotations Target="Shop.Shop/Orders">
        <Annotation Term="Agg.CustomAggregate" Qualifier="Orders" String="Edm.Int64" />
        <Annotation Term="Agg.CustomAggregate" Qualifier="Undefined" String="Edm.Decimal" />
      </Annotations>
      <Annotations Target="com.example.shop.Shop">
        <Annotation Term="Agg.CustomAggregate" Qualifier="Budget" String="Edm.Decimal" />
      </Annotations>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;

const declared = (model: Model, set: string): Record<string, string> => {
  const entitySet = model.entitySets.get(set) as EntitySet;
  return Object.fromEntries([...declaredCustomAggregates(model, entitySet, entitySet.type).values()].map((d) => [d.name, `${d.type} on ${d.on}`]));
};

describe('custom aggregates declared by a model', () => {
  const model = modelFromCsdlXml(XML);

  it('reads them from CSDL XML: inline and external, on the type (inherited), the set and the container, by alias or namespace', () => {
    expect(declared(model, 'Orders')).toEqual({
      Units: 'Edm.Int64 on set',
      Orders: 'Edm.Int64 on set',
      Undefined: 'Edm.Decimal on set',
      Revenue: 'Edm.Decimal on type',
      Budget: 'Edm.Decimal on container',
    });
    expect(declared(model, 'RushOrders')).toEqual({ Revenue: 'Edm.Decimal on type', Budget: 'Edm.Decimal on container' });
  });

  it('reads the custom aggregation methods: ApplySupported of the set replaces ApplySupportedDefaults of the container', () => {
    const methods = (set: string): string[] => {
      const entitySet = model.entitySets.get(set) as EntitySet;
      return [...declaredCustomAggregationMethods(model, entitySet, entitySet.type)];
    };
    expect(methods('Orders')).toEqual(['Shop.median']);
    expect(methods('RushOrders')).toEqual(['Shop.concat']);
  });

  it('reads them from CSDL JSON as written back', () => {
    const again = modelFromCsdl(csdlJsonFromModel(model));
    expect(declared(again, 'Orders')).toEqual(declared(model, 'Orders'));
  });

  it('declares them with defineModel, written to CSDL as the annotation', () => {
    const defined = defineModel({
      namespace: 'Shop',
      entityTypes: { Order: { key: ['id'], properties: { id: 'Edm.Int32', amount: 'Edm.Decimal' } } },
      entitySets: { orders: { type: 'Order', customAggregates: { Revenue: 'Edm.Decimal' } } },
    });
    expect(declared(defined, 'orders')).toEqual({ Revenue: 'Edm.Decimal on set' });
    const json = csdlJsonFromModel(defined) as { Shop: { Container: { orders: Record<string, unknown> } }; $Reference: Record<string, unknown> };
    expect(json.Shop.Container.orders['@Aggregation.CustomAggregate#Revenue']).toBe('Edm.Decimal');
    expect(JSON.stringify(json.$Reference)).toContain('Org.OData.Aggregation.V1');
    expect(declared(modelFromCsdl(json), 'orders')).toEqual({ Revenue: 'Edm.Decimal on set' });
  });
});

describe('a CSDL XML service with custom aggregates, end to end', () => {
  const model = modelFromCsdlXml(XML);
  const data = {
    Orders: [
      { ID: 1, Region: 'north', Amount: '10.50', Quantity: 2 },
      { ID: 2, Region: 'south', Amount: '4', Quantity: 1 },
      { ID: 3, Region: 'north', Amount: '1.25', Quantity: 5 },
    ],
    RushOrders: [],
  };
  const handler = createODataHandler({
    model,
    basePath: '/shop',
    source: memorySource(data),
    settings: {
      customAggregates: { Revenue: 'Amount with sum', Units: 'Quantity with sum', Orders: '$count' },
      customAggregationMethods: {
        'Shop.concat': { type: 'Edm.String', inputTypes: ['Edm.String'], memory: (values) => [...new Set(values as string[])].sort().join(',') },
      },
    },
  });
  const get = async (query: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await handler(new Request(`http://localhost/shop/${query}`));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('aggregates the declared custom aggregates as the host defines them', async () => {
    const { status, body } = await get('Orders?$apply=groupby((Region),aggregate(Revenue,Units,Orders as N))&$orderby=Region');
    expect(status).toBe(200);
    // Dynamic properties of the result: with their types (Decimal, Int64).
    const typed = { 'Revenue@odata.type': 'Decimal', 'Units@odata.type': 'Int64', 'N@odata.type': 'Int64' };
    expect(body.value).toEqual([
      { Region: 'north', Revenue: 11.75, Units: 7, N: 2, ...typed },
      { Region: 'south', Revenue: 4, Units: 1, N: 1, ...typed },
    ]);
  });

  it('runs a custom method the container declares for the set', async () => {
    const { body } = await get('Orders?$apply=aggregate(Region with Shop.concat as Regions)');
    expect(body.value).toEqual([{ Regions: 'north,south' }]);
  });

  it('refuses a declared one the service does not define with 501, an undeclared one with 400', async () => {
    const undefinedOne = await get('Orders?$apply=aggregate(Undefined)');
    expect(undefinedOne.status).toBe(501);
    expect((undefinedOne.body.error as { code: string }).code).toBe('not_implemented');
    const median = await get('Orders?$apply=aggregate(Amount with Shop.median as M)');
    expect(median.status).toBe(501);
    expect(JSON.stringify(median.body)).toContain("The custom aggregation method 'Shop.median' is declared by the model, but this service does not define it");
    const unknown = await get('Orders?$apply=aggregate(Nothing)');
    expect(unknown.status).toBe(400);
  });
});
