import { ODataModelResponseV4, ODataCollectionResponseV4 } from "@odata2ts/odata-core";
import { StringCollection, QStringCollection } from "@odata2ts/odata-query-objects";
import { ODataHttpClient, ODataHttpClientConfig, HttpResponseModel } from "@odata2ts/http-client-api";
import { ODataService, EntityTypeServiceV4, EntitySetServiceV4, CollectionServiceV4 } from "@odata2ts/odata-service";
import { PhotoId, PersonId, AirlineId, AirportId, Airport, GetNearestAirportParams, Photo, EditablePhoto, Person, EditablePerson, Location, EditableLocation, TripId, Airline, Trip, Person_GetFriendsTripsParams, Person_ShareTripParams, EditableAirline, EditableAirport, PlanItem, EditablePlanItem, PlanItemId, PublicTransportation, EditablePublicTransportation, Flight, EditableFlight, Event, EditableEvent, EditableTrip, City, EditableCity, EventLocation, EditableEventLocation, AirportLocation, EditableAirportLocation } from "./MicrosoftODataSampleServiceModelsTripPinModel";
import { QPhoto, QPerson, QLocation, QAirline, QAirport, QPlanItem, QPublicTransportation, QFlight, QEvent, QTrip, QCity, QEventLocation, QAirportLocation } from "./QMicrosoftODataSampleServiceModelsTripPin";
export declare class MicrosoftODataSampleServiceModelsTripPinService<ClientType extends ODataHttpClient> extends ODataService<ClientType> {
    private _Me?;
    private _QGetNearestAirport?;
    private _QResetDataSource?;
    Photos(): PhotoCollectionService<ClientType>;
    Photos(id: PhotoId): PhotoService<ClientType>;
    People(): PersonCollectionService<ClientType>;
    People(id: PersonId): PersonService<ClientType>;
    Airlines(): AirlineCollectionService<ClientType>;
    Airlines(id: AirlineId): AirlineService<ClientType>;
    Airports(): AirportCollectionService<ClientType>;
    Airports(id: AirportId): AirportService<ClientType>;
    Me(): PersonService<ClientType>;
    GetNearestAirport(params: GetNearestAirportParams, requestConfig?: ODataHttpClientConfig<ClientType>): Promise<HttpResponseModel<ODataModelResponseV4<Airport>>>;
    ResetDataSource(requestConfig?: ODataHttpClientConfig<ClientType>): Promise<HttpResponseModel<ODataModelResponseV4<void>>>;
}
export declare class PhotoService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, Photo, EditablePhoto, QPhoto> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class PhotoCollectionService<ClientType extends ODataHttpClient> extends EntitySetServiceV4<ClientType, Photo, EditablePhoto, QPhoto, PhotoId> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class PersonService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, Person, EditablePerson, QPerson> {
    private _Emails?;
    private _AddressInfo?;
    private _Photo?;
    private _Person_QGetFavoriteAirline?;
    private _Person_QGetFriendsTrips?;
    private _Person_QShareTrip?;
    constructor(client: ClientType, basePath: string, name: string);
    Emails(): CollectionServiceV4<ClientType, StringCollection, QStringCollection, string>;
    AddressInfo(): CollectionServiceV4<ClientType, Location, QLocation, EditableLocation>;
    Friends(): PersonCollectionService<ClientType>;
    Friends(id: PersonId): PersonService<ClientType>;
    Trips(): TripCollectionService<ClientType>;
    Trips(id: TripId): TripService<ClientType>;
    Photo(): PhotoService<ClientType>;
    GetFavoriteAirline(requestConfig?: ODataHttpClientConfig<ClientType>): Promise<HttpResponseModel<ODataModelResponseV4<Airline>>>;
    GetFriendsTrips(params: Person_GetFriendsTripsParams, requestConfig?: ODataHttpClientConfig<ClientType>): Promise<HttpResponseModel<ODataCollectionResponseV4<Trip>>>;
    ShareTrip(params: Person_ShareTripParams, requestConfig?: ODataHttpClientConfig<ClientType>): Promise<HttpResponseModel<ODataModelResponseV4<void>>>;
}
export declare class PersonCollectionService<ClientType extends ODataHttpClient> extends EntitySetServiceV4<ClientType, Person, EditablePerson, QPerson, PersonId> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class AirlineService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, Airline, EditableAirline, QAirline> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class AirlineCollectionService<ClientType extends ODataHttpClient> extends EntitySetServiceV4<ClientType, Airline, EditableAirline, QAirline, AirlineId> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class AirportService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, Airport, EditableAirport, QAirport> {
    private _Location?;
    constructor(client: ClientType, basePath: string, name: string);
    Location(): AirportLocationService<ClientType>;
}
export declare class AirportCollectionService<ClientType extends ODataHttpClient> extends EntitySetServiceV4<ClientType, Airport, EditableAirport, QAirport, AirportId> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class PlanItemService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, PlanItem, EditablePlanItem, QPlanItem> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class PlanItemCollectionService<ClientType extends ODataHttpClient> extends EntitySetServiceV4<ClientType, PlanItem, EditablePlanItem, QPlanItem, PlanItemId> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class PublicTransportationService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, PublicTransportation, EditablePublicTransportation, QPublicTransportation> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class PublicTransportationCollectionService<ClientType extends ODataHttpClient> extends EntitySetServiceV4<ClientType, PublicTransportation, EditablePublicTransportation, QPublicTransportation, PlanItemId> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class FlightService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, Flight, EditableFlight, QFlight> {
    private _From?;
    private _To?;
    private _Airline?;
    constructor(client: ClientType, basePath: string, name: string);
    From(): AirportService<ClientType>;
    To(): AirportService<ClientType>;
    Airline(): AirlineService<ClientType>;
}
export declare class FlightCollectionService<ClientType extends ODataHttpClient> extends EntitySetServiceV4<ClientType, Flight, EditableFlight, QFlight, PlanItemId> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class EventService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, Event, EditableEvent, QEvent> {
    private _OccursAt?;
    constructor(client: ClientType, basePath: string, name: string);
    OccursAt(): EventLocationService<ClientType>;
}
export declare class EventCollectionService<ClientType extends ODataHttpClient> extends EntitySetServiceV4<ClientType, Event, EditableEvent, QEvent, PlanItemId> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class TripService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, Trip, EditableTrip, QTrip> {
    private _Tags?;
    private _Trip_QGetInvolvedPeople?;
    constructor(client: ClientType, basePath: string, name: string);
    Tags(): CollectionServiceV4<ClientType, StringCollection, QStringCollection, string>;
    Photos(): PhotoCollectionService<ClientType>;
    Photos(id: PhotoId): PhotoService<ClientType>;
    PlanItems(): PlanItemCollectionService<ClientType>;
    PlanItems(id: PlanItemId): PlanItemService<ClientType>;
    GetInvolvedPeople(requestConfig?: ODataHttpClientConfig<ClientType>): Promise<HttpResponseModel<ODataCollectionResponseV4<Person>>>;
}
export declare class TripCollectionService<ClientType extends ODataHttpClient> extends EntitySetServiceV4<ClientType, Trip, EditableTrip, QTrip, TripId> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class CityService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, City, EditableCity, QCity> {
    constructor(client: ClientType, basePath: string, name: string);
}
export declare class LocationService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, Location, EditableLocation, QLocation> {
    private _City?;
    constructor(client: ClientType, basePath: string, name: string);
    City(): CityService<ClientType>;
}
export declare class EventLocationService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, EventLocation, EditableEventLocation, QEventLocation> {
    private _City?;
    constructor(client: ClientType, basePath: string, name: string);
    City(): CityService<ClientType>;
}
export declare class AirportLocationService<ClientType extends ODataHttpClient> extends EntityTypeServiceV4<ClientType, AirportLocation, EditableAirportLocation, QAirportLocation> {
    private _City?;
    constructor(client: ClientType, basePath: string, name: string);
    City(): CityService<ClientType>;
}
