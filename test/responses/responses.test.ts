import { describe, expect, it } from 'vitest';
import { bindQuery, errorResponse, isLastPage, listResponse, ODataError, skipForPage } from '../../src/index.js';
import { assetModel } from '../fixtures/asset-model.js';

describe('errorResponse', () => {
  it('an excessive $top gives 400 with the OData error body', () => {
    let error: unknown;
    try {
      bindQuery('$top=101', { model: assetModel, entitySet: 'assets' });
    } catch (e) {
      error = e;
    }
    const response = errorResponse(error);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body.error.code).toBe('top_limit_exceeded');
    expect(response.body.error.message).toBe("The limit of '100' for Top query has been exceeded. The value from the incoming request is '101'.");
    expect(response.body.error.target).toBe('$top');
  });

  it('any other error is a 500 that reveals nothing', () => {
    const response = errorResponse(new Error('database password is hunter2'));
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('hunter2');
    expect(response.body.error.code).toBe('internal_error');
  });

  it('an ODataError keeps its own status (501 for $apply)', () => {
    expect(errorResponse(new ODataError({ code: 'unsupported_option', status: 501, reason: 'x' })).status).toBe(501);
  });
});

describe('list responses and paging', () => {
  it('{ value, count } with the count named count by default, renamable', () => {
    expect(listResponse([1, 2], { count: 7 })).toEqual({ value: [1, 2], count: 7 });
    expect(listResponse([1], { count: 7, countProperty: '@odata.count' })).toEqual({ value: [1], '@odata.count': 7 });
    expect(Object.keys(listResponse([]))).toEqual(['value']);
  });

  it('skip = pageIndex * top', () => {
    expect(skipForPage(0, 20)).toBe(0);
    expect(skipForPage(3, 20)).toBe(60);
    expect(() => skipForPage(-1, 20)).toThrow(RangeError);
    expect(() => skipForPage(1, 0)).toThrow(RangeError);
  });

  it('paging ends when fewer than top come back, or skip + received reaches count', () => {
    expect(isLastPage({ received: 19, top: 20 })).toBe(true);
    expect(isLastPage({ received: 20, top: 20 })).toBe(false);
    expect(isLastPage({ received: 20, top: 20, skip: 40, count: 60 })).toBe(true);
    expect(isLastPage({ received: 20, top: 20, skip: 20, count: 60 })).toBe(false);
  });
});
