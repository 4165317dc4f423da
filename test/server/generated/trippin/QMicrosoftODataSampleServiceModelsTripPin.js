import { QueryObject, QNumberPath, QStringPath, QId, QNumberParam, QCollectionPath, QStringCollection, QEntityCollectionPath, QEnumPath, QEntityPath, QStringParam, QFunction, OperationReturnType, ReturnTypes, QComplexParam, QAction, QDateTimeOffsetPath, QGuidPath } from "@odata2ts/odata-query-objects";
export class QPhoto extends QueryObject {
    Id = new QNumberPath(this.withPrefix("Id"));
    Name = new QStringPath(this.withPrefix("Name"));
}
export const qPhoto = new QPhoto();
export class QPhotoId extends QId {
    params = [new QNumberParam("Id")];
    getParams() {
        return this.params;
    }
}
export class QPerson extends QueryObject {
    UserName = new QStringPath(this.withPrefix("UserName"));
    FirstName = new QStringPath(this.withPrefix("FirstName"));
    LastName = new QStringPath(this.withPrefix("LastName"));
    Emails = new QCollectionPath(this.withPrefix("Emails"), () => QStringCollection);
    AddressInfo = new QEntityCollectionPath(this.withPrefix("AddressInfo"), () => QLocation);
    Gender = new QEnumPath(this.withPrefix("Gender"));
    Concurrency = new QNumberPath(this.withPrefix("Concurrency"));
    Friends = new QEntityCollectionPath(this.withPrefix("Friends"), () => QPerson);
    Trips = new QEntityCollectionPath(this.withPrefix("Trips"), () => QTrip);
    Photo = new QEntityPath(this.withPrefix("Photo"), () => QPhoto);
}
export const qPerson = new QPerson();
export class QPersonId extends QId {
    params = [new QStringParam("UserName")];
    getParams() {
        return this.params;
    }
}
export class Person_QGetFavoriteAirline extends QFunction {
    params = [];
    constructor() {
        super("Microsoft.OData.SampleService.Models.TripPin.GetFavoriteAirline", new OperationReturnType(ReturnTypes.COMPLEX, new QComplexParam("NONE", new QAirline)));
    }
    getParams() {
        return this.params;
    }
    buildUrl() {
        return super.buildUrl(undefined);
    }
}
export class Person_QGetFriendsTrips extends QFunction {
    params = [new QStringParam("userName")];
    constructor() {
        super("Microsoft.OData.SampleService.Models.TripPin.GetFriendsTrips", new OperationReturnType(ReturnTypes.COMPLEX_COLLECTION, new QComplexParam("NONE", new QTrip)));
    }
    getParams() {
        return this.params;
    }
}
export class Person_QShareTrip extends QAction {
    params = [new QStringParam("userName"), new QNumberParam("tripId")];
    constructor() {
        super("Microsoft.OData.SampleService.Models.TripPin.ShareTrip");
    }
    getParams() {
        return this.params;
    }
}
export class QAirline extends QueryObject {
    AirlineCode = new QStringPath(this.withPrefix("AirlineCode"));
    Name = new QStringPath(this.withPrefix("Name"));
}
export const qAirline = new QAirline();
export class QAirlineId extends QId {
    params = [new QStringParam("AirlineCode")];
    getParams() {
        return this.params;
    }
}
export class QAirport extends QueryObject {
    IcaoCode = new QStringPath(this.withPrefix("IcaoCode"));
    Name = new QStringPath(this.withPrefix("Name"));
    IataCode = new QStringPath(this.withPrefix("IataCode"));
    Location = new QEntityPath(this.withPrefix("Location"), () => QAirportLocation);
}
export const qAirport = new QAirport();
export class QAirportId extends QId {
    params = [new QStringParam("IcaoCode")];
    getParams() {
        return this.params;
    }
}
export class QPlanItem extends QueryObject {
    PlanItemId = new QNumberPath(this.withPrefix("PlanItemId"));
    ConfirmationCode = new QStringPath(this.withPrefix("ConfirmationCode"));
    StartsAt = new QDateTimeOffsetPath(this.withPrefix("StartsAt"));
    EndsAt = new QDateTimeOffsetPath(this.withPrefix("EndsAt"));
    Duration = new QStringPath(this.withPrefix("Duration"));
}
export const qPlanItem = new QPlanItem();
export class QPlanItemId extends QId {
    params = [new QNumberParam("PlanItemId")];
    getParams() {
        return this.params;
    }
}
export class QPublicTransportation extends QPlanItem {
    SeatNumber = new QStringPath(this.withPrefix("SeatNumber"));
}
export const qPublicTransportation = new QPublicTransportation();
export class QFlight extends QPublicTransportation {
    FlightNumber = new QStringPath(this.withPrefix("FlightNumber"));
    From = new QEntityPath(this.withPrefix("From"), () => QAirport);
    To = new QEntityPath(this.withPrefix("To"), () => QAirport);
    Airline = new QEntityPath(this.withPrefix("Airline"), () => QAirline);
}
export const qFlight = new QFlight();
export class QEvent extends QPlanItem {
    Description = new QStringPath(this.withPrefix("Description"));
    OccursAt = new QEntityPath(this.withPrefix("OccursAt"), () => QEventLocation);
}
export const qEvent = new QEvent();
export class QTrip extends QueryObject {
    TripId = new QNumberPath(this.withPrefix("TripId"));
    ShareId = new QGuidPath(this.withPrefix("ShareId"));
    Description = new QStringPath(this.withPrefix("Description"));
    Name = new QStringPath(this.withPrefix("Name"));
    Budget = new QNumberPath(this.withPrefix("Budget"));
    StartsAt = new QDateTimeOffsetPath(this.withPrefix("StartsAt"));
    EndsAt = new QDateTimeOffsetPath(this.withPrefix("EndsAt"));
    Tags = new QCollectionPath(this.withPrefix("Tags"), () => QStringCollection);
    Photos = new QEntityCollectionPath(this.withPrefix("Photos"), () => QPhoto);
    PlanItems = new QEntityCollectionPath(this.withPrefix("PlanItems"), () => QPlanItem);
}
export const qTrip = new QTrip();
export class QTripId extends QId {
    params = [new QNumberParam("TripId")];
    getParams() {
        return this.params;
    }
}
export class Trip_QGetInvolvedPeople extends QFunction {
    params = [];
    constructor() {
        super("Microsoft.OData.SampleService.Models.TripPin.GetInvolvedPeople", new OperationReturnType(ReturnTypes.COMPLEX_COLLECTION, new QComplexParam("NONE", new QPerson)));
    }
    getParams() {
        return this.params;
    }
    buildUrl() {
        return super.buildUrl(undefined);
    }
}
export class QCity extends QueryObject {
    CountryRegion = new QStringPath(this.withPrefix("CountryRegion"));
    Name = new QStringPath(this.withPrefix("Name"));
    Region = new QStringPath(this.withPrefix("Region"));
}
export const qCity = new QCity();
export class QLocation extends QueryObject {
    Address = new QStringPath(this.withPrefix("Address"));
    City = new QEntityPath(this.withPrefix("City"), () => QCity);
}
export const qLocation = new QLocation();
export class QEventLocation extends QLocation {
    BuildingInfo = new QStringPath(this.withPrefix("BuildingInfo"));
}
export const qEventLocation = new QEventLocation();
export class QAirportLocation extends QLocation {
    Loc = new QStringPath(this.withPrefix("Loc"));
}
export const qAirportLocation = new QAirportLocation();
export class QGetNearestAirport extends QFunction {
    params = [new QNumberParam("lat"), new QNumberParam("lon")];
    constructor() {
        super("GetNearestAirport", new OperationReturnType(ReturnTypes.COMPLEX, new QComplexParam("NONE", new QAirport)));
    }
    getParams() {
        return this.params;
    }
}
export class QResetDataSource extends QAction {
    params = [];
    constructor() {
        super("ResetDataSource");
    }
    getParams() {
        return this.params;
    }
}
