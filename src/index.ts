/**
 * odata-engine: an OData v4.01 query-language engine.
 *
 * Parsing: {@link parseQuery} for a whole query string, or one function per option.
 * Printing: {@link printQuery} and {@link printExpression} give canonical text back.
 * Errors: everything that goes wrong with a query is an {@link ODataError}.
 *
 * This entry is everything: the core (`odata-engine/core`) and the backends
 * (`odata-engine/memory`, `odata-engine/sql`, `odata-engine/mongo`), which can also be imported on
 * their own.
 *
 * @packageDocumentation
 */
export * from './core.js';
export * from './backends/memory/index.js';
export * from './backends/sql/index.js';
export * from './backends/mongo/index.js';
