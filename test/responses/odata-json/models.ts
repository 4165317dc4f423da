/**
 * Models for the OData JSON response tests: a small TripPin (people with derived employees and
 * managers, contained trips, complex locations, a compound key), orders as in ASP.NET Core
 * OData's media type tests, and the pseudo-model of the OASIS ABNF context URL test cases.
 */
import { defineModel } from '../../../src/index.js';

export const trippin = defineModel({
  namespace: 'Trippin',
  enumTypes: { PersonGender: ['Male', 'Female', 'Unknown'] },
  complexTypes: {
    City: { properties: { Name: 'Edm.String', CountryRegion: 'Edm.String' } },
    Location: { properties: { Address: 'Edm.String', City: 'City' } },
    EventLocation: { baseType: 'Location', properties: { BuildingInfo: 'Edm.String' } },
  },
  entityTypes: {
    Person: {
      key: ['UserName'],
      properties: {
        UserName: { type: 'Edm.String', nullable: false },
        FirstName: 'Edm.String',
        LastName: 'Edm.String',
        Age: 'Edm.Int64',
        Gender: 'PersonGender',
        Emails: 'Collection(Edm.String)',
        AddressInfo: 'Collection(Location)',
        HomeAddress: 'Location',
      },
      navigation: {
        Friends: { type: 'Collection(Person)' },
        BestFriend: { type: 'Person' },
        Trips: { type: 'Collection(Trip)', containsTarget: true },
      },
    },
    Employee: { baseType: 'Person', properties: { Cost: 'Edm.Int64' } },
    Manager: { baseType: 'Person', properties: { Budget: 'Edm.Int64' }, navigation: { DirectReports: { type: 'Collection(Manager)' } } },
    Trip: {
      key: ['TripId'],
      properties: { TripId: 'Edm.Int32', Name: 'Edm.String', Budget: 'Edm.Single', StartsAt: 'Edm.DateTimeOffset', ShareId: 'Edm.Guid' },
    },
    Order: { key: ['Id'], properties: { Id: 'Edm.Int32', Amount: 'Edm.Decimal', TrackingNumber: 'Edm.Int64' } },
    OrderLine: { key: ['OrderId', 'Line'], properties: { OrderId: 'Edm.Int32', Line: 'Edm.String', Price: 'Edm.Decimal' } },
  },
  entitySets: { People: { type: 'Person' }, Orders: { type: 'Order' }, OrderLines: { type: 'OrderLine' }, AllTrips: { type: 'Trip' } },
});

/** The names the OASIS ABNF test cases for context URLs use (their `Constraints`, reduced to what the cases need). */
export const abnfModel = defineModel({
  namespace: 'Model',
  complexTypes: { Address: { properties: { Street: 'Edm.String', Country: 'Edm.String', Name: 'Edm.String' } } },
  entityTypes: {
    Customer: {
      key: ['ID'],
      properties: { ID: 'Edm.String', Name: 'Edm.String', Address: 'Address', Addresses: 'Collection(Address)' },
      navigation: { Orders: { type: 'Collection(Order)', containsTarget: true } },
    },
    VipCustomer: { baseType: 'Customer', properties: { Rating: 'Edm.Int32' } },
    Order: { key: ['ID'], properties: { ID: 'Edm.Int32' }, navigation: { Items: { type: 'Collection(Item)', containsTarget: true } } },
    Item: { key: ['ID'], properties: { ID: 'Edm.Int32', Price: 'Edm.Decimal', Product: 'Edm.String' } },
    Employee: {
      key: ['ID'],
      properties: { ID: 'Edm.Int32', Title: 'Edm.String', FirstName: 'Edm.String', LastName: 'Edm.String' },
      navigation: { DirectReports: { type: 'Collection(Employee)' } },
    },
  },
  entitySets: { Customers: { type: 'Customer' }, Employees: { type: 'Employee' }, AllItems: { type: 'Item' } },
});
