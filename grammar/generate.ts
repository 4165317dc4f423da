/**
 * `npm run grammar`: writes grammar/diagrams.html, railroad diagrams of every rule of the
 * Chevrotain parser, generated from the parser's own grammar (so they cannot drift).
 */
import { writeFileSync } from 'node:fs';
import { createSyntaxDiagramsCode } from 'chevrotain';
import { sharedParser } from '../src/syntax/parser.js';

const target = new URL('./diagrams.html', import.meta.url);
writeFileSync(target, createSyntaxDiagramsCode(sharedParser().getSerializedGastProductions()));
console.log(`wrote ${target.pathname}`);
