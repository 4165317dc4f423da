/**
 * Content negotiation (PROT §5.1, §7, §8.2.1, §8.2.7; JSON Format §3, §4.1): `$format` over
 * `Accept`, the format parameters with or without `odata.`, the response version from
 * `OData-MaxVersion`, 406 and 400 where no response fits; and the OASIS ABNF `header` cases for
 * `OData-Version` and `OData-MaxVersion`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ODataError } from '../../../src/index.js';
import { negotiateFormat, type FormatRequest } from '../../../src/responses/odata-json/index.js';
import { CORPUS_DIR, corpusAvailable } from '../../conformance/corpus.js';
import { readAbnfTestCases } from '../../conformance/yaml-cases.js';

function failure(request: FormatRequest): ODataError {
  try {
    negotiateFormat(request);
  } catch (error) {
    if (error instanceof ODataError) return error;
    throw error;
  }
  throw new Error('negotiateFormat did not fail');
}

describe('negotiateFormat: data', () => {
  it('no Accept, no $format: JSON with minimal metadata, OData 4.01', () => {
    const format = negotiateFormat({});
    expect(format).toMatchObject({ mediaType: 'application/json', metadata: 'minimal', ieee754Compatible: false, streaming: false, version: '4.01' });
    expect(format.contentType).toBe('application/json;metadata=minimal');
    expect(format.headers).toEqual({ 'content-type': 'application/json;metadata=minimal', 'odata-version': '4.01' });
  });

  it('the version: 4.0 for OData-MaxVersion 4.0, 4.01 above; format parameters named as the version does (JSON Format §3.1)', () => {
    expect(negotiateFormat({ maxVersion: '4.0' }).contentType).toBe('application/json;odata.metadata=minimal');
    expect(negotiateFormat({ maxVersion: '4.01' }).version).toBe('4.01');
    expect(negotiateFormat({ maxVersion: '5.0' }).version).toBe('4.01');
    expect(negotiateFormat({}, { defaultVersion: '4.0' }).version).toBe('4.0');
  });

  it('the parameters of Accept, with or without odata., in any order and case (ASP.NET Core OData media type tests)', () => {
    const full = negotiateFormat({ accept: 'application/json;odata.metadata=full;odata.streaming=true;IEEE754Compatible=true', maxVersion: '4.0' });
    expect(full).toMatchObject({ metadata: 'full', streaming: true, ieee754Compatible: true });
    expect(full.contentType).toBe('application/json;odata.metadata=full;odata.streaming=true;IEEE754Compatible=true');
    const none = negotiateFormat({ accept: 'application/json;IEEE754Compatible=false;metadata=NONE' });
    expect(none).toMatchObject({ metadata: 'none', ieee754Compatible: false });
    expect(none.contentType).toBe('application/json;metadata=none;IEEE754Compatible=false');
    expect(negotiateFormat({ accept: 'application/json;odata.streaming=false;IEEE754Compatible=true' }).metadata).toBe('minimal');
  });

  it('explicitParameters: streaming and IEEE754Compatible always named, as ASP.NET Core OData sends them', () => {
    expect(negotiateFormat({ maxVersion: '4.0' }, { explicitParameters: true }).contentType).toBe(
      'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false',
    );
    expect(negotiateFormat({ accept: 'application/json;odata.streaming=false' }, { explicitParameters: true }).contentType).toBe(
      'application/json;metadata=minimal;streaming=false;IEEE754Compatible=false',
    );
  });

  it('$format overrides Accept: json, or a media type with parameters (PROT §7)', () => {
    expect(negotiateFormat({ format: 'JSON', accept: 'application/xml' }).metadata).toBe('minimal');
    expect(negotiateFormat({ format: 'application/json;odata.metadata=none', accept: 'application/json;odata.metadata=full' }).metadata).toBe('none');
    expect(failure({ format: 'atom', accept: 'application/json' }).status).toBe(406);
    expect(failure({ format: 'xml' }).code).toBe('not_acceptable');
  });

  it('ranges by quality; wildcards accept JSON; q=0 refuses', () => {
    expect(negotiateFormat({ accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }).mediaType).toBe('application/json');
    expect(negotiateFormat({ accept: 'application/json;odata.metadata=none;q=0.5, application/json;odata.metadata=full' }).metadata).toBe('full');
    expect(negotiateFormat({ accept: 'application/*' }).mediaType).toBe('application/json');
    expect(failure({ accept: 'application/json;q=0' }).status).toBe(406);
  });

  it('406 not_acceptable: another media type, an unknown parameter or value (PROT §8.2.1), a charset other than UTF-8', () => {
    for (const accept of [
      'application/xml',
      'text/plain',
      'application/json;odata=verbose',
      'application/json;odata.metadata=some',
      'application/json;charset=iso-8859-1',
    ]) {
      const error = failure({ accept });
      expect([error.code, error.status], accept).toEqual(['not_acceptable', 406]);
    }
    expect(failure({ acceptCharset: 'iso-8859-1' }).status).toBe(406);
    expect(negotiateFormat({ acceptCharset: 'iso-8859-1, utf-8;q=0.5' }).mediaType).toBe('application/json');
    expect(negotiateFormat({ acceptCharset: '*' }).mediaType).toBe('application/json');
  });

  it('charset only when asked for (PROT §8.2.1)', () => {
    expect(negotiateFormat({ accept: 'application/json;charset=utf-8' }).contentType).toBe('application/json;metadata=minimal;charset=utf-8');
  });

  it('400 unsupported_version: OData-MaxVersion below 4.0 or malformed, an OData-Version other than 4.0 and 4.01', () => {
    for (const request of [{ maxVersion: '3.0' }, { maxVersion: 'four' }, { version: '3.0' }, { version: '4.02' }]) {
      const error = failure(request);
      expect([error.code, error.status], JSON.stringify(request)).toEqual(['unsupported_version', 400]);
    }
  });
});

describe('negotiateFormat: the metadata document (PROT §11.1.2)', () => {
  it('XML by default and for wildcards, CSDL JSON when asked for', () => {
    expect(negotiateFormat({ resource: 'metadata' }).contentType).toBe('application/xml');
    expect(negotiateFormat({ resource: 'metadata', accept: '*/*' }).mediaType).toBe('application/xml');
    expect(negotiateFormat({ resource: 'metadata', accept: 'application/json' }).contentType).toBe('application/json');
    expect(negotiateFormat({ resource: 'metadata', format: 'json' }).mediaType).toBe('application/json');
    expect(negotiateFormat({ resource: 'metadata', format: 'xml', accept: 'application/json' }).mediaType).toBe('application/xml');
    expect(failure({ resource: 'metadata', accept: 'text/html' }).status).toBe(406);
  });
});

describe.skipIf(!corpusAvailable)('the OASIS ABNF test cases of the rule header', () => {
  const cases = corpusAvailable
    ? readAbnfTestCases(readFileSync(resolve(CORPUS_DIR, 'odata-abnf-testcases.yaml'), 'utf8'), 'abnf').filter((c) => c.rule === 'header')
    : [];
  /** `Name: value` of a case. */
  const header = (input: string) => {
    const colon = input.indexOf(':');
    return { name: input.slice(0, colon).toLowerCase(), value: input.slice(colon + 1) };
  };

  it('13 cases, all valid; 5 concern OData-Version and OData-MaxVersion, the other 8 headers are no part of negotiation', () => {
    expect(cases.length).toBe(13);
    expect(cases.every((c) => c.valid)).toBe(true);
    const names = cases.map((c) => header(c.input).name);
    expect(names.filter((n) => n === 'odata-version' || n === 'odata-maxversion').length).toBe(5);
  });

  it('each OData-MaxVersion gives a response version; each OData-Version is read', () => {
    const versions = cases
      .map((c) => header(c.input))
      .filter((h) => h.name === 'odata-maxversion')
      .map((h) => negotiateFormat({ maxVersion: h.value }).version);
    expect(versions).toEqual(['4.0', '4.01', '4.01']);
    for (const h of cases.map((c) => header(c.input)).filter((h) => h.name === 'odata-version')) {
      expect(negotiateFormat({ version: h.value }).mediaType).toBe('application/json');
    }
  });
});
