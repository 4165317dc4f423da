/**
 * Next links (PROT §11.2.6.7, JSON Format §4.5.5): the request URL with `$skiptoken` set, every
 * other option as sent, `$skip` dropped and a client's `$top` reduced by the page, as ASP.NET
 * Core OData writes them.
 */
import { describe, expect, it } from 'vitest';
import { nextLinkUrl } from '../../../src/responses/odata-json/index.js';

describe('nextLinkUrl', () => {
  it('appends $skiptoken, percent-encoded, and keeps every other option as sent', () => {
    expect(nextLinkUrl('https://host/svc/People?$filter=Age%20gt%2030&$orderby=UserName', { skiptoken: 'a b/c', returned: 20 })).toBe(
      'https://host/svc/People?$filter=Age%20gt%2030&$orderby=UserName&$skiptoken=a%20b%2Fc',
    );
    expect(nextLinkUrl('https://host/svc/People', { skiptoken: "'russellwhyte'", returned: 8 })).toBe("https://host/svc/People?$skiptoken='russellwhyte'");
    expect(nextLinkUrl(new URL('https://host/svc/People?custom=1#top'), { skiptoken: '5', returned: 5 })).toBe('https://host/svc/People?custom=1&$skiptoken=5');
  });

  it('replaces a $skiptoken in place (any case, with or without $)', () => {
    expect(nextLinkUrl('/People?$skiptoken=old&$select=UserName', { skiptoken: 'new', returned: 3 })).toBe('/People?$skiptoken=new&$select=UserName');
    expect(nextLinkUrl('/People?SkipToken=old', { skiptoken: 'new', returned: 3 })).toBe('/People?$skiptoken=new');
  });

  it('reduces a client $top by the page, and gives no next link when it is used up', () => {
    expect(nextLinkUrl('/People?$top=50&$count=true', { skiptoken: 't', returned: 20 })).toBe('/People?$top=30&$count=true&$skiptoken=t');
    expect(nextLinkUrl('/People?top=50', { skiptoken: 't', returned: 20 })).toBe('/People?top=30&$skiptoken=t');
    expect(nextLinkUrl('/People?$top=20', { skiptoken: 't', returned: 20 })).toBeUndefined();
  });

  it('drops $skip: it applied to the first page, the token continues after this one', () => {
    expect(nextLinkUrl('/People?$skip=10&$top=30', { skiptoken: 't', returned: 10 })).toBe('/People?$top=20&$skiptoken=t');
  });
});
