/**
 * Our `defineModel` version of the part of Apache Olingo's technical test service EDM
 * (namespace `olingo.odata.test1`, alias `Namespace1_Alias`) that the model-bound cases of
 * `olingo-cases.json` use. Reconstructed from apache/olingo-odata4
 * lib/server-tecsvc/src/main/java/org/apache/olingo/server/tecsvc/provider/
 * (EntityTypeProvider, ComplexTypeProvider, PropertyProvider, EnumTypeProvider,
 * ContainerProvider). Only names and types carry over.
 *
 * Left out: functions, actions and their imports, singletons (`SINav`), containment, terms,
 * precision/scale/default values, media streams, and navigation property bindings (our binder
 * finds a navigation target's set by its type). The type definition `TDString` becomes
 * Edm.String.
 */
import { defineModel, type Model } from '../../../src/index.js';

/** Edm.X properties named PropertyX, as Olingo's PropertyProvider names them. */
const ALL_PRIM = {
  PropertyString: 'Edm.String',
  PropertyBinary: 'Edm.Binary',
  PropertyBoolean: 'Edm.Boolean',
  PropertyByte: 'Edm.Byte',
  PropertyDate: 'Edm.Date',
  PropertyDateTimeOffset: 'Edm.DateTimeOffset',
  PropertyDecimal: 'Edm.Decimal',
  PropertySingle: 'Edm.Single',
  PropertyDouble: 'Edm.Double',
  PropertyDuration: 'Edm.Duration',
  PropertyGuid: 'Edm.Guid',
  PropertyInt16: 'Edm.Int16',
  PropertyInt32: 'Edm.Int32',
  PropertyInt64: 'Edm.Int64',
  PropertySByte: 'Edm.SByte',
  PropertyTimeOfDay: 'Edm.TimeOfDay',
} as const;

const technicalService = defineModel({
  namespace: 'olingo.odata.test1',
  enumTypes: {
    ENString: { members: { String1: 1, String2: 2, String3: 4 }, flags: true, underlyingType: 'Edm.Int16' },
  },
  complexTypes: {
    CTAllPrim: { properties: ALL_PRIM },
    CTTwoPrim: {
      properties: { PropertyInt16: { type: 'Edm.Int16', nullable: false }, PropertyString: { type: 'Edm.String', nullable: false } },
      navigation: { NavPropertyETTwoKeyNavOne: { type: 'ETTwoKeyNav' }, NavPropertyETMediaOne: { type: 'ETMedia' } },
    },
    CTBase: { baseType: 'CTTwoPrim', properties: { AdditionalPropString: 'Edm.String' } },
    CTTwoBase: { baseType: 'CTBase', properties: {} },
    CTPrimComp: { properties: { PropertyInt16: 'Edm.Int16', PropertyComp: 'CTAllPrim' } },
    CTCompComp: { properties: { PropertyComp: 'CTTwoPrim' } },
    CTCompCollComp: { properties: { CollPropertyComp: 'Collection(CTTwoPrim)' } },
    CTNavFiveProp: {
      properties: { PropertyInt16: 'Edm.Int16' },
      navigation: {
        NavPropertyETTwoKeyNavOne: { type: 'ETTwoKeyNav' },
        NavPropertyETTwoKeyNavMany: { type: 'Collection(ETTwoKeyNav)' },
        NavPropertyETMediaOne: { type: 'ETMedia' },
        NavPropertyETMediaMany: { type: 'Collection(ETMedia)' },
      },
    },
    CTCompNav: { properties: { PropertyString: 'Edm.String', PropertyCompNav: 'CTNavFiveProp' } },
    CTBasePrimCompNav: {
      baseType: 'CTPrimComp',
      properties: {},
      navigation: {
        NavPropertyETTwoKeyNavOne: { type: 'ETTwoKeyNav' },
        NavPropertyETTwoKeyNavMany: { type: 'Collection(ETTwoKeyNav)' },
        NavPropertyETKeyNavOne: { type: 'ETKeyNav' },
        NavPropertyETKeyNavMany: { type: 'Collection(ETKeyNav)' },
      },
    },
    CTTwoBasePrimCompNav: { baseType: 'CTBasePrimCompNav', properties: {} },
    CTMixEnumDef: {
      properties: {
        PropertyEnumString: 'ENString',
        CollPropertyEnumString: 'Collection(ENString)',
        PropertyDefString: 'Edm.String',
        CollPropertyDefString: 'Collection(Edm.String)',
      },
    },
  },
  entityTypes: {
    ETAllPrim: {
      key: ['PropertyInt16'],
      properties: { ...ALL_PRIM, PropertyInt16: { type: 'Edm.Int16', nullable: false } },
      navigation: { NavPropertyETTwoPrimOne: { type: 'ETTwoPrim', nullable: false }, NavPropertyETTwoPrimMany: { type: 'Collection(ETTwoPrim)' } },
    },
    ETTwoPrim: {
      key: ['PropertyInt16'],
      properties: { PropertyInt16: 'Edm.Int16', PropertyString: 'Edm.String' },
      navigation: { NavPropertyETAllPrimOne: { type: 'ETAllPrim' }, NavPropertyETAllPrimMany: { type: 'Collection(ETAllPrim)' } },
    },
    ETMedia: { key: ['PropertyInt16'], properties: { PropertyInt16: 'Edm.Int16' } },
    ETMixPrimCollComp: {
      key: ['PropertyInt16'],
      properties: {
        PropertyInt16: 'Edm.Int16',
        CollPropertyString: 'Collection(Edm.String)',
        PropertyComp: 'CTTwoPrim',
        CollPropertyComp: 'Collection(CTTwoPrim)',
      },
    },
    ETCompCollComp: { key: ['PropertyInt16'], properties: { PropertyInt16: 'Edm.Int16', PropertyComp: 'CTCompCollComp' } },
    ETKeyNav: {
      key: ['PropertyInt16'],
      properties: {
        PropertyInt16: 'Edm.Int16',
        PropertyString: { type: 'Edm.String', nullable: false },
        PropertyCompNav: 'CTNavFiveProp',
        PropertyCompAllPrim: 'CTAllPrim',
        PropertyCompTwoPrim: 'CTTwoPrim',
        CollPropertyString: 'Collection(Edm.String)',
        CollPropertyInt16: 'Collection(Edm.Int16)',
        CollPropertyComp: 'Collection(CTPrimComp)',
        PropertyCompCompNav: 'CTCompNav',
      },
      navigation: {
        NavPropertyETTwoKeyNavOne: { type: 'ETTwoKeyNav', nullable: false },
        NavPropertyETTwoKeyNavMany: { type: 'Collection(ETTwoKeyNav)', partner: 'NavPropertyETKeyNavOne' },
        NavPropertyETKeyNavOne: { type: 'ETKeyNav' },
        NavPropertyETKeyNavMany: { type: 'Collection(ETKeyNav)' },
        NavPropertyETMediaOne: { type: 'ETMedia' },
        NavPropertyETMediaMany: { type: 'Collection(ETMedia)' },
      },
    },
    ETKeyPrimNav: {
      key: ['PropertyInt16'],
      properties: { PropertyInt16: 'Edm.Int16', PropertyString: 'Edm.String' },
      navigation: { NavPropertyETKeyPrimNavOne: { type: 'ETKeyPrimNav' } },
    },
    ETTwoKeyNav: {
      key: ['PropertyInt16', 'PropertyString'],
      properties: {
        PropertyInt16: 'Edm.Int16',
        PropertyString: 'Edm.String',
        PropertyComp: { type: 'CTPrimComp', nullable: false },
        PropertyCompNav: { type: 'CTBasePrimCompNav', nullable: false },
        CollPropertyComp: 'Collection(CTPrimComp)',
        CollPropertyCompNav: 'Collection(CTNavFiveProp)',
        CollPropertyString: 'Collection(Edm.String)',
        PropertyCompTwoPrim: 'CTTwoPrim',
      },
      navigation: {
        NavPropertyETKeyNavOne: { type: 'ETKeyNav', constraints: { PropertyInt16: 'PropertyInt16' } },
        NavPropertyETKeyNavMany: { type: 'Collection(ETKeyNav)' },
        NavPropertyETTwoKeyNavOne: { type: 'ETTwoKeyNav' },
        NavPropertyETTwoKeyNavMany: { type: 'Collection(ETTwoKeyNav)' },
        NavPropertySINav: { type: 'ETTwoKeyNav' },
      },
    },
    ETBaseTwoKeyNav: {
      baseType: 'ETTwoKeyNav',
      properties: { PropertyDate: 'Edm.Date' },
      navigation: { NavPropertyETBaseTwoKeyNavOne: { type: 'ETBaseTwoKeyNav' }, NavPropertyETTwoBaseTwoKeyNavOne: { type: 'ETTwoBaseTwoKeyNav' } },
    },
    ETTwoBaseTwoKeyNav: {
      baseType: 'ETBaseTwoKeyNav',
      properties: { PropertyGuid: 'Edm.Guid' },
      navigation: { NavPropertyETBaseTwoKeyNavMany: { type: 'Collection(ETBaseTwoKeyNav)' } },
    },
    ETMixEnumDefCollComp: {
      key: ['PropertyEnumString', 'PropertyDefString'],
      properties: {
        PropertyEnumString: 'ENString',
        CollPropertyEnumString: 'Collection(ENString)',
        PropertyDefString: 'Edm.String',
        CollPropertyDefString: 'Collection(Edm.String)',
        PropertyCompMixedEnumDef: 'CTMixEnumDef',
        CollPropertyCompMixedEnumDef: 'Collection(CTMixEnumDef)',
      },
    },
  },
  entitySets: {
    ESAllPrim: { type: 'ETAllPrim' },
    ESTwoPrim: { type: 'ETTwoPrim' },
    ESMedia: { type: 'ETMedia' },
    ESMixPrimCollComp: { type: 'ETMixPrimCollComp' },
    ESCompCollComp: { type: 'ETCompCollComp' },
    ESKeyNav: { type: 'ETKeyNav' },
    ESKeyPrimNav: { type: 'ETKeyPrimNav' },
    ESTwoKeyNav: { type: 'ETTwoKeyNav' },
    ESBaseTwoKeyNav: { type: 'ETBaseTwoKeyNav' },
    ESMixEnumDefCollComp: { type: 'ETMixEnumDefCollComp' },
  },
});

/**
 * `defineModel` has no option for the schema alias, so it is set on the built model: the
 * binder resolves `Namespace1_Alias.X` through `Model.alias`.
 */
export const olingoModel: Model = { ...technicalService, alias: 'Namespace1_Alias' };
