export declare enum PersonGender {
    Male = "Male",
    Female = "Female",
    Unknown = "Unknown"
}
export interface Photo {
    /**
     * **Key Property**: This is a key property used to identify the entity.<br/>**Managed**: This property is managed on the server side and cannot be edited.
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Id` |
     * | Type | `Edm.Int64` |
     * | Nullable | `false` |
     */
    Id: number;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Name` |
     * | Type | `Edm.String` |
     */
    Name: string | null;
}
export type PhotoId = number | {
    Id: number;
};
export interface EditablePhoto extends Partial<Pick<Photo, "Name">> {
}
export interface Person {
    /**
     * **Key Property**: This is a key property used to identify the entity.<br/>**Managed**: This property is managed on the server side and cannot be edited.
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `UserName` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    UserName: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `FirstName` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    FirstName: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `LastName` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    LastName: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Emails` |
     * | Type | `Collection(Edm.String)` |
     */
    Emails: Array<string>;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `AddressInfo` |
     * | Type | `Collection(Microsoft.OData.SampleService.Models.TripPin.Location)` |
     */
    AddressInfo: Array<Location>;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Gender` |
     * | Type | `Microsoft.OData.SampleService.Models.TripPin.PersonGender` |
     */
    Gender: PersonGender | null;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Concurrency` |
     * | Type | `Edm.Int64` |
     * | Nullable | `false` |
     */
    Concurrency: number;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Friends` |
     * | Type | `Collection(Microsoft.OData.SampleService.Models.TripPin.Person)` |
     */
    Friends?: Array<Person>;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Trips` |
     * | Type | `Collection(Microsoft.OData.SampleService.Models.TripPin.Trip)` |
     */
    Trips?: Array<Trip>;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Photo` |
     * | Type | `Microsoft.OData.SampleService.Models.TripPin.Photo` |
     */
    Photo?: Photo | null;
}
export type PersonId = string | {
    UserName: string;
};
export interface EditablePerson extends Pick<Person, "FirstName" | "LastName" | "Concurrency">, Partial<Pick<Person, "Emails" | "Gender">> {
    AddressInfo?: Array<EditableLocation>;
}
export interface Person_GetFriendsTripsParams {
    userName: string;
}
export interface Person_ShareTripParams {
    userName: string;
    tripId: number;
}
export interface Airline {
    /**
     * **Key Property**: This is a key property used to identify the entity.<br/>**Managed**: This property is managed on the server side and cannot be edited.
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `AirlineCode` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    AirlineCode: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Name` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    Name: string;
}
export type AirlineId = string | {
    AirlineCode: string;
};
export interface EditableAirline extends Pick<Airline, "Name"> {
}
export interface Airport {
    /**
     * **Key Property**: This is a key property used to identify the entity.<br/>**Managed**: This property is managed on the server side and cannot be edited.
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `IcaoCode` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    IcaoCode: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Name` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    Name: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `IataCode` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    IataCode: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Location` |
     * | Type | `Microsoft.OData.SampleService.Models.TripPin.AirportLocation` |
     * | Nullable | `false` |
     */
    Location: AirportLocation;
}
export type AirportId = string | {
    IcaoCode: string;
};
export interface EditableAirport extends Pick<Airport, "Name" | "IataCode"> {
    Location: EditableAirportLocation;
}
export interface PlanItem {
    /**
     * **Key Property**: This is a key property used to identify the entity.<br/>**Managed**: This property is managed on the server side and cannot be edited.
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `PlanItemId` |
     * | Type | `Edm.Int32` |
     * | Nullable | `false` |
     */
    PlanItemId: number;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `ConfirmationCode` |
     * | Type | `Edm.String` |
     */
    ConfirmationCode: string | null;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `StartsAt` |
     * | Type | `Edm.DateTimeOffset` |
     */
    StartsAt: string | null;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `EndsAt` |
     * | Type | `Edm.DateTimeOffset` |
     */
    EndsAt: string | null;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Duration` |
     * | Type | `Edm.Duration` |
     */
    Duration: string | null;
}
export type PlanItemId = number | {
    PlanItemId: number;
};
export interface EditablePlanItem extends Partial<Pick<PlanItem, "ConfirmationCode" | "StartsAt" | "EndsAt" | "Duration">> {
}
export interface PublicTransportation extends PlanItem {
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `SeatNumber` |
     * | Type | `Edm.String` |
     */
    SeatNumber: string | null;
}
export interface EditablePublicTransportation extends Partial<Pick<PublicTransportation, "ConfirmationCode" | "StartsAt" | "EndsAt" | "Duration" | "SeatNumber">> {
}
export interface Flight extends PublicTransportation {
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `FlightNumber` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    FlightNumber: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `From` |
     * | Type | `Microsoft.OData.SampleService.Models.TripPin.Airport` |
     * | Nullable | `false` |
     */
    From?: Airport;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `To` |
     * | Type | `Microsoft.OData.SampleService.Models.TripPin.Airport` |
     * | Nullable | `false` |
     */
    To?: Airport;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Airline` |
     * | Type | `Microsoft.OData.SampleService.Models.TripPin.Airline` |
     * | Nullable | `false` |
     */
    Airline?: Airline;
}
export interface EditableFlight extends Pick<Flight, "FlightNumber">, Partial<Pick<Flight, "ConfirmationCode" | "StartsAt" | "EndsAt" | "Duration" | "SeatNumber">> {
}
export interface Event extends PlanItem {
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Description` |
     * | Type | `Edm.String` |
     */
    Description: string | null;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `OccursAt` |
     * | Type | `Microsoft.OData.SampleService.Models.TripPin.EventLocation` |
     * | Nullable | `false` |
     */
    OccursAt: EventLocation;
}
export interface EditableEvent extends Partial<Pick<Event, "ConfirmationCode" | "StartsAt" | "EndsAt" | "Duration" | "Description">> {
    OccursAt: EditableEventLocation;
}
export interface Trip {
    /**
     * **Key Property**: This is a key property used to identify the entity.<br/>**Managed**: This property is managed on the server side and cannot be edited.
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `TripId` |
     * | Type | `Edm.Int32` |
     * | Nullable | `false` |
     */
    TripId: number;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `ShareId` |
     * | Type | `Edm.Guid` |
     */
    ShareId: string | null;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Description` |
     * | Type | `Edm.String` |
     */
    Description: string | null;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Name` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    Name: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Budget` |
     * | Type | `Edm.Single` |
     * | Nullable | `false` |
     */
    Budget: number;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `StartsAt` |
     * | Type | `Edm.DateTimeOffset` |
     * | Nullable | `false` |
     */
    StartsAt: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `EndsAt` |
     * | Type | `Edm.DateTimeOffset` |
     * | Nullable | `false` |
     */
    EndsAt: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Tags` |
     * | Type | `Collection(Edm.String)` |
     * | Nullable | `false` |
     */
    Tags: Array<string>;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Photos` |
     * | Type | `Collection(Microsoft.OData.SampleService.Models.TripPin.Photo)` |
     */
    Photos?: Array<Photo>;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `PlanItems` |
     * | Type | `Collection(Microsoft.OData.SampleService.Models.TripPin.PlanItem)` |
     */
    PlanItems?: Array<PlanItem>;
}
export type TripId = number | {
    TripId: number;
};
export interface EditableTrip extends Pick<Trip, "Name" | "Budget" | "StartsAt" | "EndsAt" | "Tags">, Partial<Pick<Trip, "ShareId" | "Description">> {
}
export interface City {
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `CountryRegion` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    CountryRegion: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Name` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    Name: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Region` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    Region: string;
}
export interface EditableCity extends Pick<City, "CountryRegion" | "Name" | "Region"> {
}
export interface Location {
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Address` |
     * | Type | `Edm.String` |
     * | Nullable | `false` |
     */
    Address: string;
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `City` |
     * | Type | `Microsoft.OData.SampleService.Models.TripPin.City` |
     * | Nullable | `false` |
     */
    City: City;
}
export interface EditableLocation extends Pick<Location, "Address"> {
    City: EditableCity;
}
export interface EventLocation extends Location {
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `BuildingInfo` |
     * | Type | `Edm.String` |
     */
    BuildingInfo: string | null;
}
export interface EditableEventLocation extends Pick<EventLocation, "Address">, Partial<Pick<EventLocation, "BuildingInfo">> {
    City: EditableCity;
}
export interface AirportLocation extends Location {
    /**
     *
     * OData Attributes:
     * |Attribute Name | Attribute Value |
     * | --- | ---|
     * | Name | `Loc` |
     * | Type | `Edm.GeographyPoint` |
     * | Nullable | `false` |
     */
    Loc: string;
}
export interface EditableAirportLocation extends Pick<AirportLocation, "Address" | "Loc"> {
    City: EditableCity;
}
export interface GetNearestAirportParams {
    lat: number;
    lon: number;
}
