import { QueryObject, QNumberPath, QStringPath, QId, QNumberParam, QCollectionPath, QStringCollection, QEntityCollectionPath, QEnumPath, QEntityPath, QStringParam, QFunction, QAction, QDateTimeOffsetPath, QGuidPath } from "@odata2ts/odata-query-objects";
import { PhotoId, PersonId, Person_GetFriendsTripsParams, Person_ShareTripParams, AirlineId, AirportId, PlanItemId, TripId, GetNearestAirportParams } from "./MicrosoftODataSampleServiceModelsTripPinModel";
export declare class QPhoto extends QueryObject {
    readonly Id: QNumberPath<number>;
    readonly Name: QStringPath<string>;
}
export declare const qPhoto: QPhoto;
export declare class QPhotoId extends QId<PhotoId> {
    private readonly params;
    getParams(): QNumberParam<number>[];
}
export declare class QPerson extends QueryObject {
    readonly UserName: QStringPath<string>;
    readonly FirstName: QStringPath<string>;
    readonly LastName: QStringPath<string>;
    readonly Emails: QCollectionPath<QStringCollection>;
    readonly AddressInfo: QEntityCollectionPath<QLocation>;
    readonly Gender: QEnumPath<string>;
    readonly Concurrency: QNumberPath<number>;
    readonly Friends: QEntityCollectionPath<QPerson>;
    readonly Trips: QEntityCollectionPath<QTrip>;
    readonly Photo: QEntityPath<QPhoto>;
}
export declare const qPerson: QPerson;
export declare class QPersonId extends QId<PersonId> {
    private readonly params;
    getParams(): QStringParam<string>[];
}
export declare class Person_QGetFavoriteAirline extends QFunction {
    private readonly params;
    constructor();
    getParams(): [];
    buildUrl(): string;
}
export declare class Person_QGetFriendsTrips extends QFunction<Person_GetFriendsTripsParams> {
    private readonly params;
    constructor();
    getParams(): QStringParam<string>[];
}
export declare class Person_QShareTrip extends QAction<Person_ShareTripParams> {
    private readonly params;
    constructor();
    getParams(): (QNumberParam<number> | QStringParam<string>)[];
}
export declare class QAirline extends QueryObject {
    readonly AirlineCode: QStringPath<string>;
    readonly Name: QStringPath<string>;
}
export declare const qAirline: QAirline;
export declare class QAirlineId extends QId<AirlineId> {
    private readonly params;
    getParams(): QStringParam<string>[];
}
export declare class QAirport extends QueryObject {
    readonly IcaoCode: QStringPath<string>;
    readonly Name: QStringPath<string>;
    readonly IataCode: QStringPath<string>;
    readonly Location: QEntityPath<QAirportLocation>;
}
export declare const qAirport: QAirport;
export declare class QAirportId extends QId<AirportId> {
    private readonly params;
    getParams(): QStringParam<string>[];
}
export declare class QPlanItem extends QueryObject {
    readonly PlanItemId: QNumberPath<number>;
    readonly ConfirmationCode: QStringPath<string>;
    readonly StartsAt: QDateTimeOffsetPath<string>;
    readonly EndsAt: QDateTimeOffsetPath<string>;
    readonly Duration: QStringPath<string>;
}
export declare const qPlanItem: QPlanItem;
export declare class QPlanItemId extends QId<PlanItemId> {
    private readonly params;
    getParams(): QNumberParam<number>[];
}
export declare class QPublicTransportation extends QPlanItem {
    readonly SeatNumber: QStringPath<string>;
}
export declare const qPublicTransportation: QPublicTransportation;
export declare class QFlight extends QPublicTransportation {
    readonly FlightNumber: QStringPath<string>;
    readonly From: QEntityPath<QAirport>;
    readonly To: QEntityPath<QAirport>;
    readonly Airline: QEntityPath<QAirline>;
}
export declare const qFlight: QFlight;
export declare class QEvent extends QPlanItem {
    readonly Description: QStringPath<string>;
    readonly OccursAt: QEntityPath<QEventLocation>;
}
export declare const qEvent: QEvent;
export declare class QTrip extends QueryObject {
    readonly TripId: QNumberPath<number>;
    readonly ShareId: QGuidPath<string>;
    readonly Description: QStringPath<string>;
    readonly Name: QStringPath<string>;
    readonly Budget: QNumberPath<number>;
    readonly StartsAt: QDateTimeOffsetPath<string>;
    readonly EndsAt: QDateTimeOffsetPath<string>;
    readonly Tags: QCollectionPath<QStringCollection>;
    readonly Photos: QEntityCollectionPath<QPhoto>;
    readonly PlanItems: QEntityCollectionPath<QPlanItem>;
}
export declare const qTrip: QTrip;
export declare class QTripId extends QId<TripId> {
    private readonly params;
    getParams(): QNumberParam<number>[];
}
export declare class Trip_QGetInvolvedPeople extends QFunction {
    private readonly params;
    constructor();
    getParams(): [];
    buildUrl(): string;
}
export declare class QCity extends QueryObject {
    readonly CountryRegion: QStringPath<string>;
    readonly Name: QStringPath<string>;
    readonly Region: QStringPath<string>;
}
export declare const qCity: QCity;
export declare class QLocation extends QueryObject {
    readonly Address: QStringPath<string>;
    readonly City: QEntityPath<QCity>;
}
export declare const qLocation: QLocation;
export declare class QEventLocation extends QLocation {
    readonly BuildingInfo: QStringPath<string>;
}
export declare const qEventLocation: QEventLocation;
export declare class QAirportLocation extends QLocation {
    readonly Loc: QStringPath<string>;
}
export declare const qAirportLocation: QAirportLocation;
export declare class QGetNearestAirport extends QFunction<GetNearestAirportParams> {
    private readonly params;
    constructor();
    getParams(): QNumberParam<number>[];
}
export declare class QResetDataSource extends QAction {
    private readonly params;
    constructor();
    getParams(): [];
}
