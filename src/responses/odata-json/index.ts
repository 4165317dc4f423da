/**
 * OData JSON 4.01 responses as pure functions (web standards only): context URLs, content
 * negotiation, the `Prefer` and `Preference-Applied` headers, next links and the standard
 * response bodies. See docs/odata-json.md.
 */
export { contextUrl, type ContextTarget } from './context-url.js';
export { selectList } from './select-list.js';
export { keyLiteral, keyPredicate, type KeyPredicateOptions } from './key-predicate.js';
export { negotiateFormat, type FormatRequest, type NegotiateOptions, type NegotiatedFormat } from './negotiate-format.js';
export { parsePrefer, preferenceApplied, type AppliedPreferences, type Preference, type Preferences } from './prefer.js';
export { nextLinkUrl, type NextLinkOptions } from './next-link.js';
export { complexValueJson, entityJson, type EntityLevel, type EntityOptions } from './entity-json.js';
export { odataCollectionBody, odataEntityBody, odataPropertyBody, type BodyOptions, type CollectionBodyOptions } from './bodies.js';
export { controlName, typeAnnotation, type ControlNaming, type MetadataLevel, type ODataVersion } from './versions.js';
