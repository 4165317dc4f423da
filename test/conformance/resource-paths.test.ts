/**
 * The resource-path cases of the OASIS ABNF test suite (`odata-abnf-testcases.yaml`, rules
 * `resourcePath`, `odataRelativeUri` and `odataUri`), on `parseResourcePath`, `bindResourcePath`
 * and `checkResourceQuery` against a model made from the suite's `Constraints`
 * (models/abnf-resource-model.ts). A valid case must parse and bind to that model (or to one of
 * its key variants: the constraints give no key types); an invalid case must be refused by every
 * variant. The service root of an absolute URL is whatever prefix lets the rest bind, as the
 * ABNF's `serviceRoot` leaves it open. A fragment (`$metadata#Customers`) is not sent to a service
 * and is cut off; `$metadata` with a fragment is a context URL.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bindResourcePath, checkResourceQuery, ODataError, parseQuery, type Model } from '../../src/index.js';
import { CORPUS_DIR, corpusAvailable } from './corpus.js';
import { KEY_VARIANTS, abnfResourceModel } from './models/abnf-resource-model.js';
import { readAbnfTestCases } from './yaml-cases.js';

const RULES = new Set(['resourcePath', 'odataRelativeUri', 'odataUri']);
const MODELS: readonly Model[] = KEY_VARIANTS.map((keys) => abnfResourceModel(keys));

/** Binds a relative URL (path and query) to a model; the error, or undefined when it binds. */
function attempt(relative: string, model: Model): ODataError | undefined {
  const withoutFragment = relative.replace(/#.*$/, '');
  const question = withoutFragment.indexOf('?');
  const path = question < 0 ? withoutFragment : withoutFragment.slice(0, question);
  try {
    const query = parseQuery(question < 0 ? '' : withoutFragment.slice(question + 1), { allowId: true });
    const bound = bindResourcePath(path, { model, ...(query.aliases === undefined ? {} : { aliases: query.aliases }) });
    checkResourceQuery(bound, query);
    return undefined;
  } catch (error) {
    if (error instanceof ODataError) return error;
    throw error;
  }
}

/** The relative URLs an input may stand for: itself, or for an absolute URL each split after its host. */
function relatives(rule: string, input: string): string[] {
  if (rule !== 'odataUri') return [input];
  const root = /^https?:\/\/[^/?#]+\//i.exec(input);
  if (root === null) return [input];
  const rest = input.slice(root[0].length);
  const out = [rest];
  for (let i = rest.indexOf('/'); i >= 0 && i < (rest.indexOf('?') < 0 ? rest.length : rest.indexOf('?')); i = rest.indexOf('/', i + 1))
    out.push(rest.slice(i + 1));
  return out;
}

describe.skipIf(!corpusAvailable)('OASIS ABNF resource-path cases', () => {
  const all = corpusAvailable ? readAbnfTestCases(readFileSync(resolve(CORPUS_DIR, 'odata-abnf-testcases.yaml'), 'utf8'), 'abnf') : [];
  const cases = all.filter((c) => RULES.has(c.rule));

  it('there are the cases this test was written for', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
    expect(cases.filter((c) => c.failAt !== undefined).length).toBeGreaterThanOrEqual(15);
  });

  describe('valid cases parse and bind', () => {
    for (const c of cases.filter((each) => each.failAt === undefined)) {
      it(`${c.id} ${c.input}`, () => {
        const errors = relatives(c.rule, c.input).flatMap((relative) => MODELS.map((model) => attempt(relative, model)));
        expect(
          errors.some((error) => error === undefined),
          errors.map((error) => error?.message).join(' | '),
        ).toBe(true);
      });
    }
  });

  describe('invalid cases are refused', () => {
    for (const c of cases.filter((each) => each.failAt !== undefined)) {
      it(`${c.id} ${c.input}`, () => {
        for (const relative of relatives(c.rule, c.input)) for (const model of MODELS) expect(attempt(relative, model), relative).toBeInstanceOf(ODataError);
      });
    }
  });
});
