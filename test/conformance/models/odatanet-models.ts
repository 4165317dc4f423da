/**
 * Our `defineModel` versions of the two EDM models the OData.net URI-parser cases run against
 * (`odatanet-cases.json`):
 *
 * - `HardCodedTestModel` (OData/odata.net, test/UnitTests/Microsoft.OData.Core.Tests/UriParser/
 *   HardCodedTestModel.cs), from the summary in `odatanet-model.json`, completed from the source
 *   file where the summary is silent: the key properties, the members of `AddressType`, the
 *   navigation properties the summary leaves out (`Employee/OfficeDog`, `Dog/EmployeeOwner`,
 *   `Dog/LionWhoAteMe`, `Dog/LionsISaw`, `Lion/DogThatIAte`, `Lion/DogsSeenMe`, `Lion/Friends`),
 *   and the `Shape` and `PetCategory` entity types.
 * - The model of `EnumFilterFunctionalTests` (namespace `NS`, entity set `MySet`).
 *
 * Only names and types carry over. What we cannot express is left out:
 * - type definitions (`IdType`, `NameType`, `UInt16`, `UInt32`, `UInt64`) become their
 *   underlying primitive types (Edm.Double, Edm.String, Edm.Int32, Edm.Int64, Edm.Decimal);
 * - bound and unbound functions and actions (`HasDog`, `AllMyFriendsDogs`, `CanMoveToAddress`,
 *   `GetMyDog`, `Move`, …), function and action imports, terms;
 * - the singleton `Boss`, containment (`MyContainedDog`, `MyContainedChimeras` are plain
 *   navigation properties here), alternate keys, and the schema alias `MainAlias`;
 * - navigation property bindings: our binder finds a navigation target's set by its type.
 */
import { defineModel } from '../../../src/index.js';

export const hardCodedTestModel = defineModel({
  namespace: 'Fully.Qualified.Namespace',
  enumTypes: {
    ColorPattern: {
      members: {
        Red: 1,
        Blue: 2,
        Yellow: 4,
        Solid: 8,
        Striped: 16,
        SolidRed: 9,
        SolidBlue: 10,
        SolidYellow: 12,
        RedBlueStriped: 19,
        RedYellowStriped: 21,
        BlueYellowStriped: 22,
      },
      flags: true,
      underlyingType: 'Edm.Int64',
    },
    NonFlagShape: { members: { Rectangle: 1, Triangle: 2, foursquare: 3 }, underlyingType: 'Edm.SByte' },
    AddressType: { members: { Home: 0, Work: 1, Other: 2 } },
  },
  complexTypes: {
    Address: {
      properties: {
        Street: 'Edm.String',
        City: 'Edm.String',
        NextHome: 'Address',
        MyNeighbors: 'Collection(Edm.String)',
        AddressType: { type: 'AddressType', nullable: false },
      },
      navigation: { PostBoxPainting: { type: 'Painting' } },
    },
    HomeAddress: { baseType: 'Address', properties: { HomeNO: 'Edm.String' } },
    WorkAddress: { baseType: 'Address', properties: { WorkNO: 'Edm.String' } },
    OpenAddress: { open: true, properties: {} },
    Heartbeat: { properties: { Frequency: 'Edm.Double' } },
  },
  entityTypes: {
    Person: {
      key: ['ID'],
      properties: {
        ID: 'Edm.Int32',
        SSN: 'Edm.String',
        Shoe: 'Edm.String',
        Geography: 'Edm.Geography',
        GeographyPoint: 'Edm.GeographyPoint',
        GeographyLineString: 'Edm.GeographyLineString',
        GeographyPolygon: 'Edm.GeographyPolygon',
        GeometryPoint: 'Edm.GeometryPoint',
        GeometryLineString: 'Edm.GeometryLineString',
        GeometryPolygon: 'Edm.GeometryPolygon',
        GeographyCollection: 'Collection(Edm.GeographyPoint)',
        GeographyParentCollection: 'Collection(Edm.Geography)',
        GeometryCollection: 'Collection(Edm.GeometryPoint)',
        Name: 'Edm.String',
        FirstName: 'Edm.String', // type definition NameType (Edm.String)
        'Prop.With.Periods': 'Edm.String',
        MyDate: { type: 'Edm.Date', nullable: false },
        MyDates: 'Collection(Edm.Date)',
        MyTimeOfDay: { type: 'Edm.TimeOfDay', nullable: false },
        MyTimeOfDays: 'Collection(Edm.TimeOfDay)',
        Birthdate: { type: 'Edm.DateTimeOffset', nullable: false },
        FavoriteDate: 'Edm.DateTimeOffset',
        TimeEmployed: 'Edm.Duration',
        MyAddress: 'Address',
        MyOpenAddress: 'OpenAddress',
        PreviousAddresses: 'Collection(Address)',
        FavoriteColors: 'Collection(ColorPattern)',
        FavoriteNumber: 'Edm.Int32', // type definition UInt16 (Edm.Int32)
        SecondFavoriteNumber: { type: 'Edm.Int16', nullable: false },
        RelatedIDs: 'Collection(Edm.Int32)',
        RelatedSSNs: 'Collection(Edm.String)',
        StockQuantity: 'Edm.Int64', // type definition UInt32 (Edm.Int64)
        LifeTime: 'Edm.Decimal', // type definition UInt64 (Edm.Decimal)
        MyGuid: 'Edm.Guid',
      },
      navigation: {
        MyDog: { type: 'Dog' },
        MyFriendsDogs: { type: 'Collection(Dog)' },
        MyPaintings: { type: 'Collection(Painting)' },
        MyFavoritePainting: { type: 'Painting' },
        MyLions: { type: 'Collection(Lion)', constraints: { ID: 'ID1' } },
        MyContainedDog: { type: 'Dog' },
        MyContainedChimeras: { type: 'Collection(Chimera)' },
        MyPet2Set: { type: 'Collection(Pet2)' },
      },
    },
    Employee: {
      baseType: 'Person',
      properties: { WorkEmail: 'Edm.String', WorkID: 'Edm.Int32', WorkAddress: 'WorkAddress' },
      navigation: {
        PaintingsInOffice: { type: 'Collection(Painting)' },
        Manager: { type: 'Manager' },
        OfficeDog: { type: 'Dog', nullable: false, partner: 'EmployeeOwner' },
      },
    },
    Manager: {
      baseType: 'Employee',
      properties: { NumberOfReports: 'Edm.Int32' },
      navigation: { DirectReports: { type: 'Collection(Employee)' } },
    },
    OpenEmployee: { baseType: 'Employee', open: true, properties: {} },
    Dog: {
      key: ['ID'],
      properties: {
        ID: 'Edm.Int32',
        Color: 'Edm.String',
        Nicknames: 'Collection(Edm.String)',
        Breed: 'Edm.String',
        NamedStream: 'Edm.Stream',
        Weight: 'Edm.Double',
      },
      navigation: {
        EmployeeOwner: { type: 'Employee', nullable: false, partner: 'OfficeDog' },
        MyPeople: { type: 'Collection(Person)' },
        FastestOwner: { type: 'Person' },
        LionWhoAteMe: { type: 'Lion', nullable: false, partner: 'DogThatIAte' },
        LionsISaw: { type: 'Collection(Lion)', nullable: false, partner: 'DogsSeenMe' },
      },
    },
    Lion: {
      key: ['ID1', 'ID2'],
      properties: {
        ID1: 'Edm.Int32',
        ID2: 'Edm.Int32',
        AngerLevel: 'Edm.Double',
        AttackDates: 'Collection(Edm.DateTimeOffset)',
        LionHeartbeat: 'Heartbeat',
      },
      navigation: {
        DogThatIAte: { type: 'Dog', nullable: false, partner: 'LionWhoAteMe', constraints: { ID1: 'ID' } },
        DogsSeenMe: { type: 'Collection(Dog)', nullable: false, partner: 'LionsISaw', constraints: { ID1: 'ID' } },
        Friends: { type: 'Collection(Lion)', nullable: false, constraints: { ID2: 'ID1' } },
      },
    },
    Chimera: {
      key: ['Rid', 'Gid', 'Name', 'Upgraded'],
      open: true,
      properties: { Rid: 'Edm.Int32', Gid: 'Edm.Guid', Name: 'Edm.String', Upgraded: 'Edm.Boolean', Level: 'Edm.Int32' },
    },
    Painting: {
      key: ['ID'],
      open: true,
      properties: { ID: 'Edm.Int32', Artist: 'Edm.String', ArtistAddress: 'Address', Value: 'Edm.Decimal', Colors: 'Collection(Edm.String)' },
      navigation: { Owner: { type: 'Person' } },
    },
    FramedPainting: { baseType: 'Painting', open: true, properties: { FrameColor: 'Edm.String' } },
    UserAccount: { key: ['UserName'], properties: { UserName: 'Edm.String' } },
    Pet1: {
      key: ['ID'],
      properties: {
        ID: 'Edm.Int64',
        SingleID: { type: 'Edm.Single', nullable: false },
        DoubleID: { type: 'Edm.Double', nullable: false },
        DecimalID: { type: 'Edm.Decimal', nullable: false },
        Color: 'Edm.String',
      },
    },
    Pet2: {
      key: ['ID'],
      properties: {
        ID: 'Edm.Single',
        Color: 'Edm.String',
        PetColorPattern: { type: 'ColorPattern', nullable: false },
        Shape: { type: 'NonFlagShape', nullable: false },
      },
    },
    Pet3: { key: ['ID'], properties: { ID: 'Edm.Double', Color: 'Edm.String' } },
    Pet4: { key: ['ID'], properties: { ID: 'Edm.Decimal', Color: 'Edm.String' } },
    Pet5: { key: ['ID'], properties: { ID: 'Edm.Boolean', Color: 'Edm.String' } },
    Pet6: { key: ['ID'], properties: { ID: 'Edm.Double', Color: 'Edm.String' } }, // ID: type definition IdType (Edm.Double)
    PetCategory: { key: ['PetCategorysColorPattern'], properties: { Name: 'Edm.String', PetCategorysColorPattern: { type: 'ColorPattern', nullable: false } } },
    Film: { key: ['ID'], properties: { ID: 'Edm.Int32', Title: 'Edm.String' } },
    Shape: { key: ['Color'], properties: { Color: { type: 'ColorPattern', nullable: false } } },
  },
  entitySets: {
    People: { type: 'Person' },
    Dogs: { type: 'Dog' },
    Lions: { type: 'Lion' },
    Paintings: { type: 'Painting' },
    Users: { type: 'UserAccount' },
    Pet1Set: { type: 'Pet1' },
    Pet2Set: { type: 'Pet2' },
    Pet3Set: { type: 'Pet3' },
    Pet4Set: { type: 'Pet4' },
    Pet5Set: { type: 'Pet5' },
    Pet6Set: { type: 'Pet6' },
    Films: { type: 'Film' },
    Chimeras: { type: 'Chimera' },
    Shapes: { type: 'Shape' },
    PetCategories: { type: 'PetCategory' },
  },
});

/**
 * The model of OData.net's `EnumFilterFunctionalTests`. The test's entity type has no key; ours
 * needs one, so it gets an `ID` that no case mentions.
 */
export const enumTestModel = defineModel({
  namespace: 'NS',
  enumTypes: {
    Color: { members: { Red: 1, Green: 2, Blue: 3, White: -10 }, underlyingType: 'Edm.Int32' },
    ColorFlags: { members: { Red: 1, Green: 2, Blue: 4, GreenRed: 3 }, flags: true, underlyingType: 'Edm.Int64' },
  },
  entityTypes: {
    MyEntityType: {
      key: ['ID'],
      properties: { ID: 'Edm.Int32', Color: 'Color', ColorFlags: 'ColorFlags', Colors: 'Collection(Color)' },
    },
  },
  entitySets: { MySet: { type: 'MyEntityType' } },
});
