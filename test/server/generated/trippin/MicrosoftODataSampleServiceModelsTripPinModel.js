export var PersonGender;
(function (PersonGender) {
    PersonGender["Male"] = "Male";
    PersonGender["Female"] = "Female";
    PersonGender["Unknown"] = "Unknown";
})(PersonGender || (PersonGender = {}));
