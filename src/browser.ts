/**
 * The browser bundle's entry (`odata-engine/browser`, one minified ESM file with Chevrotain
 * inside): what a front end needs to check and try queries before sending them. Parsing,
 * printing, models (also from a server's CSDL JSON or CSDL XML `$metadata`), binding,
 * validation with diagnostics, and the in-memory backend. No Node built-in.
 */
export { ODataError } from './errors/odata-error.js';
export { parseQuery } from './syntax/query-string.js';
export { parseFilter, parseOrderBy, parseSelect, parseExpand, parseSearch } from './syntax/parse.js';
export { printQuery, printExpression } from './syntax/printer.js';
export { defineModel } from './model/define-model.js';
export { modelFromCsdl } from './model/csdl-json.js';
export { modelFromCsdlXml } from './model/csdl-xml.js';
export { bindQuery } from './semantic/bind-query.js';
export { validateQuery, type Diagnostic, type ValidateSettings } from './validation/validate-query.js';
export { completeQuery, type Completion } from './language/complete-query.js';
export { describeQuery, type QueryDescription } from './language/describe-query.js';
export { signatureHelp, type SignatureHelp } from './language/signature-help.js';
export { quickFixes, type QuickFix } from './language/quick-fixes.js';
export { compileQuery } from './backends/memory/compile-query.js';
export { dataResolver } from './backends/memory/data-resolver.js';
