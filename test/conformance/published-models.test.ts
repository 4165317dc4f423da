/**
 * Real published models on every backend (issue 28): TripPin, Northwind, Microsoft Graph and SAP
 * S/4HANA read from `shared/conformance/metadata`, rows made for them by `generateStoredData`
 * under the storage mapping (navigation without constraints through foreign keys and link
 * tables, contained entities with their container's key), loaded with `createSchemaSql` into
 * every SQL engine; each query's answer compared with the in-memory reference over the same rows.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindQuery, compileQuery, modelFromCsdlXml, type BoundQuery, type Model, type Row, type StorageMapping } from '../../src/index.js';
import { generateStoredData, judge, type BackendResult } from '../../src/testing/index.js';
import { ALL_TARGETS, openStoredTargets } from '../fixtures/differential-targets.js';
import { resolve } from 'node:path';
import { CORPUS_DIR, corpusAvailable } from './corpus.js';

interface Published {
  readonly file: string;
  /** The entity sets whose rows are made (the others stay empty: navigation to them finds nothing). */
  readonly sets?: readonly string[];
  readonly queries: readonly (readonly [set: string, query: string])[];
  /** Overrides of the storage conventions (the same for the reference, the generated rows and the schema). */
  readonly storage?: StorageMapping;
}

/** Queries people write against these services. */
export const PUBLISHED: Readonly<Record<string, Published>> = {
  TripPin: {
    file: 'trippin-v4-servicerw.xml',
    queries: [
      ['People', '$filter=Friends/any()'],
      ['People', "$filter=Friends/any(f: f/Gender eq Microsoft.OData.SampleService.Models.TripPin.PersonGender'Female')"],
      ['People', '$filter=Friends/all(f: f/Concurrency gt 0)'],
      ['People', '$filter=Friends/$count ge 2&$orderby=UserName'],
      ['People', '$filter=Friends/any(f: f/Friends/any(g: g/UserName eq $it/UserName))'],
      ['People', '$expand=Friends($select=UserName)'],
      ['People', '$expand=Friends($levels=2;$select=UserName)'],
      ['People', '$expand=Friends($select=UserName;$orderby=UserName desc;$top=1;$count=true)'],
      ['People', '$expand=Friends/$ref'],
      ['People', '$expand=Friends/$count'],
      ['People', '$filter=Trips/any()'],
      ['People', '$filter=Trips/any(t: t/Budget gt 0 and t/PlanItems/any())'],
      ['People', '$filter=Trips/any(t: t/PlanItems/$count gt 1)'],
      ['People', '$expand=Trips($select=TripId,Name;$orderby=TripId)'],
      ['People', '$expand=Trips($filter=Budget gt 0;$expand=PlanItems($select=PlanItemId,ConfirmationCode))'],
      ['People', '$expand=Trips($expand=Photos($select=Id))'],
      ['People', '$filter=Trips/any(t: t/Photos/any(p: p/Name ne null))'],
      ['People', '$select=UserName&$expand=Trips/$count'],
      ['People', '$filter=Photo/Name ne null'],
      ['People', '$orderby=Photo/Name desc,UserName&$select=UserName'],
      ['People', '$expand=Photo'],
      ['People', '$filter=Photo eq null'],
      ['People', '$count=true&$top=3&$orderby=UserName&$filter=Friends/any(f: f/Friends/any())'],
      ['People', '$apply=groupby((Photo/Name),aggregate($count as n))'],
      ['People', '$apply=filter(Friends/any())/aggregate($count as n)'],
      ['People', '$compute=Friends/$count as friends&$select=UserName,friends'],
      ['Photos', '$orderby=Id&$top=5'],
      ['People', "$filter=AddressInfo/any(a: a/City/Name eq 'Boise' or a/City/Region ne null)&$select=UserName,AddressInfo"],
      ['People', '$filter=AddressInfo/$count gt 1 and Friends/any(f: f/AddressInfo/all(a: a/Address ne null))&$select=UserName'],
      // Person is an open type: dynamic properties (generateStoredData's) in its JSON column.
      ['People', "$filter=dynA eq 'a' or dynB gt 1&$select=UserName"],
      ['People', '$filter=Friends/any(f: f/dynC eq true) and dynA ne null&$orderby=dynA,UserName&$select=UserName'],
      ['People', '$orderby=dynB desc,UserName&$select=UserName&$top=4'],
      ['People', '$apply=groupby((dynA),aggregate(dynB with countdistinct as n,dynC with sum as s,dynC with max as hi))'],
    ],
  },
  Northwind: {
    file: 'northwind-v4.xml',
    sets: ['Products', 'Categories', 'Suppliers', 'Orders', 'Order_Details', 'Customers', 'Employees', 'CustomerDemographics', 'Territories', 'Shippers'],
    queries: [
      ['Products', '$filter=Category/CategoryName ne null&$select=ProductID,ProductName'],
      ['Products', '$expand=Category($select=CategoryName),Supplier($select=CompanyName)&$orderby=ProductID&$top=4'],
      ['Products', '$filter=Order_Details/any(d: d/Quantity gt 10)&$select=ProductID'],
      ['Categories', '$expand=Products($filter=UnitPrice gt 0;$orderby=ProductID;$select=ProductID,UnitPrice;$count=true)'],
      ['Orders', '$expand=Order_Details($select=ProductID,Quantity),Customer($select=CompanyName)'],
      ['Customers', '$filter=Orders/any(o: o/Freight gt 10)&$select=CustomerID'],
      ['Customers', '$filter=CustomerDemographics/any()&$expand=CustomerDemographics($select=CustomerTypeID)'],
      ['Employees', '$expand=Employees1($select=EmployeeID),Employee1($select=EmployeeID)&$select=EmployeeID'],
      ['Employees', '$filter=Territories/$count gt 1&$select=EmployeeID'],
      ['Order_Details', '$filter=Order/Customer/Country eq Product/Supplier/Country&$select=OrderID,ProductID'],
      ['Orders', '$apply=groupby((Customer/Country),aggregate(Freight with sum as total))'],
    ],
  },
  'Microsoft Graph': {
    file: 'msgraph-v1.0-clean.xml',
    sets: ['users', 'groups', 'directoryObjects', 'user_licenseDetails'],
    queries: [
      ['users', '$filter=memberOf/any()&$select=id,displayName'],
      ['users', '$expand=manager($select=id)&$select=id'],
      ['users', '$filter=manager ne null&$select=id'],
      ['users', '$expand=memberOf($select=id;$orderby=id)&$select=id'],
      ['users', '$filter=memberOf/$count gt 1&$select=id&$orderby=id'],
      ['users', '$filter=licenseDetails/any(l: l/skuPartNumber ne null)&$select=id'],
      ['users', '$filter=assignedLicenses/any(x: x/skuId ne 00000000-0000-0000-0000-000000000000)&$select=id,assignedLicenses'],
      ['users', '$expand=licenseDetails($select=id,skuPartNumber)&$select=id'],
      ['groups', '$filter=members/any()&$select=id'],
      ['groups', '$expand=members($top=2;$orderby=id;$select=id),owners/$count&$select=id'],
      ['groups', '$filter=owners/any(o: o/deletedDateTime eq null)&$select=id,displayName&$orderby=displayName,id'],
    ],
  },
  'TripPin, stored by overrides': {
    file: 'trippin-v4-servicerw.xml',
    storage: {
      navigation: {
        'Person.Friends': { linkTable: 'friendships', sourceColumns: ['person'], targetColumns: ['friend'] },
        'Person.Photo': { foreignKey: ['photo'] },
        'Person.Trips': { parentColumns: ['traveller'] },
      },
      dynamicProperties: { Person: 'extras' },
    },
    queries: [
      ['People', "$filter=dynB eq 'a' or Friends/any(f: f/dynA lt 2)&$orderby=dynC,UserName&$select=UserName"],
      ['People', '$filter=Friends/any(f: f/Friends/any())&$select=UserName'],
      ['People', '$expand=Friends($levels=2;$select=UserName),Photo'],
      ['People', '$filter=Trips/any(t: t/PlanItems/any())&$expand=Trips($select=TripId;$expand=PlanItems($select=PlanItemId))&$select=UserName'],
    ],
  },
  'SAP S/4HANA, the item key as the foreign key': {
    file: 'sap-s4-c_salesordermanage_sd.xml',
    sets: ['SalesOrderManage', 'SalesOrderItem'],
    storage: { navigation: { 'SalesOrderItemType._SalesOrder': { foreignKey: ['SalesOrder'] } } },
    queries: [
      ['SalesOrderManage', '$filter=_Item/$count gt 1&$expand=_Item($select=SalesOrder,SalesOrderItem)&$select=SalesOrder'],
      ['SalesOrderItem', '$filter=_SalesOrder/SalesOrder eq SalesOrder&$select=SalesOrder,SalesOrderItem'],
    ],
  },
  'SAP S/4HANA': {
    file: 'sap-s4-c_salesordermanage_sd.xml',
    sets: ['SalesOrderManage', 'SalesOrderItem'],
    queries: [
      ['SalesOrderManage', '$filter=_Item/any(i: i/RequestedQuantity gt 10)&$select=SalesOrder'],
      ['SalesOrderManage', '$expand=_Item($select=SalesOrderItem,Material;$orderby=SalesOrderItem)&$select=SalesOrder,TotalNetAmount'],
      ['SalesOrderManage', '$expand=_Item/$count&$select=SalesOrder'],
      ['SalesOrderItem', '$expand=_SalesOrder($select=SalesOrder,SalesOrderType)&$select=SalesOrder,SalesOrderItem'],
      ['SalesOrderItem', '$filter=_SalesOrder/TotalNetAmount gt 0&$select=SalesOrder,SalesOrderItem'],
      ['SalesOrderManage', '$apply=groupby((SalesOrderType),aggregate(TotalNetAmount with sum as total))'],
    ],
  },
};

/**
 * What a target's answer differs in from the reference's, as the differential campaign judges it
 * (rows, values in the reference's forms, the OData JSON records where the target gives them;
 * documented deviations excused), or `undefined`.
 */
function verdict(
  bound: BoundQuery,
  text: string,
  target: string,
  expected: { value: readonly Row[]; count?: number },
  actual: BackendResult,
  rows: readonly Row[] | undefined,
): string | undefined {
  const result = { ...expected, value: expected.value as Row[] };
  return judge(bound, text, target, { kind: 'rows', result }, { kind: 'rows', result: actual }, rows).finding?.detail;
}

const MODELS = new Map<string, Model>();
const modelOf = (name: string): Model => {
  let model = MODELS.get(name);
  if (model === undefined)
    MODELS.set(name, (model = modelFromCsdlXml(readFileSync(resolve(CORPUS_DIR, 'metadata', (PUBLISHED[name] as Published).file), 'utf8'))));
  return model;
};

for (const [serviceName, published] of corpusAvailable ? Object.entries(PUBLISHED) : []) {
  const model = modelOf(serviceName);
  const storage = published.storage ?? {};
  const data = generateStoredData(model, { seed: 28, rows: 8, storage, ...(published.sets === undefined ? {} : { sets: published.sets }) });
  describe(`${serviceName}: the reference`, () => {
    it('the generated rows relate: foreign keys, link tables and contained entities are not empty', () => {
      const nonEmpty = Object.entries(data).filter(([, rows]) => rows.length > 0).length;
      expect(nonEmpty).toBeGreaterThan(Object.keys(data).length / 2);
    });
  });
  describe(`${serviceName} on every engine`, () => {
    let opened: Awaited<ReturnType<typeof openStoredTargets>>;
    beforeAll(async () => {
      opened = await openStoredTargets(model, data, ALL_TARGETS, undefined, storage);
      // The live servers are required in CI (.ci/run sets their URLs).
      if (process.env.CI === 'true') expect(opened.skipped).toEqual([]);
    });
    afterAll(async () => {
      await opened?.close();
    });
    for (const [set, query] of published.queries) {
      it(`${set}?${query}`, async () => {
        const bound = bindQuery(query, { model, entitySet: set, maxAnyAllExpressionDepth: 3 });
        const expected = compileQuery(bound, { data, storage }).apply(data[set] ?? []);
        const differences: Record<string, string> = {};
        for (const target of opened.targets) {
          const difference = verdict(bound, `${set}?${query}`, target.name, expected, await target.run(bound), data[set]);
          if (difference !== undefined) differences[target.name] = difference;
        }
        expect(differences).toEqual({});
        expect(opened.targets.length).toBeGreaterThanOrEqual(4);
      });
    }
  });
}
