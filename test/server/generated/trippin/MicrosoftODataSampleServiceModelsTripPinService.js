import { qStringCollection } from "@odata2ts/odata-query-objects";
import { ODataService, EntityTypeServiceV4, EntitySetServiceV4, CollectionServiceV4 } from "@odata2ts/odata-service";
import { QPhotoId, QPersonId, QAirlineId, QAirportId, QGetNearestAirport, QResetDataSource, qPhoto, qPerson, qLocation, QTripId, Person_QGetFavoriteAirline, Person_QGetFriendsTrips, Person_QShareTrip, qAirline, qAirport, qPlanItem, QPlanItemId, qPublicTransportation, qFlight, qEvent, qTrip, Trip_QGetInvolvedPeople, qCity, qEventLocation, qAirportLocation } from "./QMicrosoftODataSampleServiceModelsTripPin";
export class MicrosoftODataSampleServiceModelsTripPinService extends ODataService {
    _Me;
    _QGetNearestAirport;
    _QResetDataSource;
    Photos(id) {
        const fieldName = "Photos";
        const { client, path } = this.__base;
        return typeof id === "undefined" || id === null
            ? new PhotoCollectionService(client, path, fieldName)
            : new PhotoService(client, path, new QPhotoId(fieldName).buildUrl(id));
    }
    People(id) {
        const fieldName = "People";
        const { client, path } = this.__base;
        return typeof id === "undefined" || id === null
            ? new PersonCollectionService(client, path, fieldName)
            : new PersonService(client, path, new QPersonId(fieldName).buildUrl(id));
    }
    Airlines(id) {
        const fieldName = "Airlines";
        const { client, path } = this.__base;
        return typeof id === "undefined" || id === null
            ? new AirlineCollectionService(client, path, fieldName)
            : new AirlineService(client, path, new QAirlineId(fieldName).buildUrl(id));
    }
    Airports(id) {
        const fieldName = "Airports";
        const { client, path } = this.__base;
        return typeof id === "undefined" || id === null
            ? new AirportCollectionService(client, path, fieldName)
            : new AirportService(client, path, new QAirportId(fieldName).buildUrl(id));
    }
    Me() {
        if (!this._Me) {
            const { client, path } = this.__base;
            this._Me = new PersonService(client, path, "Me");
        }
        return this._Me;
    }
    async GetNearestAirport(params, requestConfig) {
        if (!this._QGetNearestAirport) {
            this._QGetNearestAirport = new QGetNearestAirport();
        }
        const { addFullPath, client, getDefaultHeaders } = this.__base;
        const url = addFullPath(this._QGetNearestAirport.buildUrl(params));
        const response = await client.get(url, requestConfig, getDefaultHeaders());
        return this._QGetNearestAirport.convertResponse(response);
    }
    async ResetDataSource(requestConfig) {
        if (!this._QResetDataSource) {
            this._QResetDataSource = new QResetDataSource();
        }
        const { addFullPath, client, getDefaultHeaders } = this.__base;
        const url = addFullPath(this._QResetDataSource.buildUrl());
        return client.post(url, {}, requestConfig, getDefaultHeaders());
    }
}
export class PhotoService extends EntityTypeServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qPhoto);
    }
}
export class PhotoCollectionService extends EntitySetServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qPhoto, new QPhotoId(name));
    }
}
export class PersonService extends EntityTypeServiceV4 {
    _Emails;
    _AddressInfo;
    _Photo;
    _Person_QGetFavoriteAirline;
    _Person_QGetFriendsTrips;
    _Person_QShareTrip;
    constructor(client, basePath, name) {
        super(client, basePath, name, qPerson);
    }
    Emails() {
        if (!this._Emails) {
            const { client, path } = this.__base;
            this._Emails = new CollectionServiceV4(client, path, "Emails", qStringCollection);
        }
        return this._Emails;
    }
    AddressInfo() {
        if (!this._AddressInfo) {
            const { client, path } = this.__base;
            this._AddressInfo = new CollectionServiceV4(client, path, "AddressInfo", qLocation);
        }
        return this._AddressInfo;
    }
    Friends(id) {
        const fieldName = "Friends";
        const { client, path } = this.__base;
        return typeof id === "undefined" || id === null
            ? new PersonCollectionService(client, path, fieldName)
            : new PersonService(client, path, new QPersonId(fieldName).buildUrl(id));
    }
    Trips(id) {
        const fieldName = "Trips";
        const { client, path } = this.__base;
        return typeof id === "undefined" || id === null
            ? new TripCollectionService(client, path, fieldName)
            : new TripService(client, path, new QTripId(fieldName).buildUrl(id));
    }
    Photo() {
        if (!this._Photo) {
            const { client, path } = this.__base;
            this._Photo = new PhotoService(client, path, "Photo");
        }
        return this._Photo;
    }
    async GetFavoriteAirline(requestConfig) {
        if (!this._Person_QGetFavoriteAirline) {
            this._Person_QGetFavoriteAirline = new Person_QGetFavoriteAirline();
        }
        const { addFullPath, client, getDefaultHeaders } = this.__base;
        const url = addFullPath(this._Person_QGetFavoriteAirline.buildUrl());
        const response = await client.get(url, requestConfig, getDefaultHeaders());
        return this._Person_QGetFavoriteAirline.convertResponse(response);
    }
    async GetFriendsTrips(params, requestConfig) {
        if (!this._Person_QGetFriendsTrips) {
            this._Person_QGetFriendsTrips = new Person_QGetFriendsTrips();
        }
        const { addFullPath, client, getDefaultHeaders } = this.__base;
        const url = addFullPath(this._Person_QGetFriendsTrips.buildUrl(params));
        const response = await client.get(url, requestConfig, getDefaultHeaders());
        return this._Person_QGetFriendsTrips.convertResponse(response);
    }
    async ShareTrip(params, requestConfig) {
        if (!this._Person_QShareTrip) {
            this._Person_QShareTrip = new Person_QShareTrip();
        }
        const { addFullPath, client, getDefaultHeaders } = this.__base;
        const url = addFullPath(this._Person_QShareTrip.buildUrl());
        return client.post(url, this._Person_QShareTrip.convertUserParams(params), requestConfig, getDefaultHeaders());
    }
}
export class PersonCollectionService extends EntitySetServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qPerson, new QPersonId(name));
    }
}
export class AirlineService extends EntityTypeServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qAirline);
    }
}
export class AirlineCollectionService extends EntitySetServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qAirline, new QAirlineId(name));
    }
}
export class AirportService extends EntityTypeServiceV4 {
    _Location;
    constructor(client, basePath, name) {
        super(client, basePath, name, qAirport);
    }
    Location() {
        if (!this._Location) {
            const { client, path } = this.__base;
            this._Location = new AirportLocationService(client, path, "Location");
        }
        return this._Location;
    }
}
export class AirportCollectionService extends EntitySetServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qAirport, new QAirportId(name));
    }
}
export class PlanItemService extends EntityTypeServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qPlanItem);
    }
}
export class PlanItemCollectionService extends EntitySetServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qPlanItem, new QPlanItemId(name));
    }
}
export class PublicTransportationService extends EntityTypeServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qPublicTransportation);
    }
}
export class PublicTransportationCollectionService extends EntitySetServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qPublicTransportation, new QPlanItemId(name));
    }
}
export class FlightService extends EntityTypeServiceV4 {
    _From;
    _To;
    _Airline;
    constructor(client, basePath, name) {
        super(client, basePath, name, qFlight);
    }
    From() {
        if (!this._From) {
            const { client, path } = this.__base;
            this._From = new AirportService(client, path, "From");
        }
        return this._From;
    }
    To() {
        if (!this._To) {
            const { client, path } = this.__base;
            this._To = new AirportService(client, path, "To");
        }
        return this._To;
    }
    Airline() {
        if (!this._Airline) {
            const { client, path } = this.__base;
            this._Airline = new AirlineService(client, path, "Airline");
        }
        return this._Airline;
    }
}
export class FlightCollectionService extends EntitySetServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qFlight, new QPlanItemId(name));
    }
}
export class EventService extends EntityTypeServiceV4 {
    _OccursAt;
    constructor(client, basePath, name) {
        super(client, basePath, name, qEvent);
    }
    OccursAt() {
        if (!this._OccursAt) {
            const { client, path } = this.__base;
            this._OccursAt = new EventLocationService(client, path, "OccursAt");
        }
        return this._OccursAt;
    }
}
export class EventCollectionService extends EntitySetServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qEvent, new QPlanItemId(name));
    }
}
export class TripService extends EntityTypeServiceV4 {
    _Tags;
    _Trip_QGetInvolvedPeople;
    constructor(client, basePath, name) {
        super(client, basePath, name, qTrip);
    }
    Tags() {
        if (!this._Tags) {
            const { client, path } = this.__base;
            this._Tags = new CollectionServiceV4(client, path, "Tags", qStringCollection);
        }
        return this._Tags;
    }
    Photos(id) {
        const fieldName = "Photos";
        const { client, path } = this.__base;
        return typeof id === "undefined" || id === null
            ? new PhotoCollectionService(client, path, fieldName)
            : new PhotoService(client, path, new QPhotoId(fieldName).buildUrl(id));
    }
    PlanItems(id) {
        const fieldName = "PlanItems";
        const { client, path } = this.__base;
        return typeof id === "undefined" || id === null
            ? new PlanItemCollectionService(client, path, fieldName)
            : new PlanItemService(client, path, new QPlanItemId(fieldName).buildUrl(id));
    }
    async GetInvolvedPeople(requestConfig) {
        if (!this._Trip_QGetInvolvedPeople) {
            this._Trip_QGetInvolvedPeople = new Trip_QGetInvolvedPeople();
        }
        const { addFullPath, client, getDefaultHeaders } = this.__base;
        const url = addFullPath(this._Trip_QGetInvolvedPeople.buildUrl());
        const response = await client.get(url, requestConfig, getDefaultHeaders());
        return this._Trip_QGetInvolvedPeople.convertResponse(response);
    }
}
export class TripCollectionService extends EntitySetServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qTrip, new QTripId(name));
    }
}
export class CityService extends EntityTypeServiceV4 {
    constructor(client, basePath, name) {
        super(client, basePath, name, qCity);
    }
}
export class LocationService extends EntityTypeServiceV4 {
    _City;
    constructor(client, basePath, name) {
        super(client, basePath, name, qLocation);
    }
    City() {
        if (!this._City) {
            const { client, path } = this.__base;
            this._City = new CityService(client, path, "City");
        }
        return this._City;
    }
}
export class EventLocationService extends EntityTypeServiceV4 {
    _City;
    constructor(client, basePath, name) {
        super(client, basePath, name, qEventLocation);
    }
    City() {
        if (!this._City) {
            const { client, path } = this.__base;
            this._City = new CityService(client, path, "City");
        }
        return this._City;
    }
}
export class AirportLocationService extends EntityTypeServiceV4 {
    _City;
    constructor(client, basePath, name) {
        super(client, basePath, name, qAirportLocation);
    }
    City() {
        if (!this._City) {
            const { client, path } = this.__base;
            this._City = new CityService(client, path, "City");
        }
        return this._City;
    }
}
