import { describe, expect, it } from 'vitest';
import { REDACTED, secretScrubber, urlPassword } from '../../src/llm/secret-scrub.js';

describe('secretScrubber', () => {
  it('replaces every secret, as written, URL-encoded and JSON-escaped; short values and no secrets leave the text alone', () => {
    const scrub = secretScrubber(['sk-test-SECRET-1', 'p@ss/w"rd-long', undefined, 'short']);
    expect(scrub(`key sk-test-SECRET-1 and sk-test-SECRET-1x`)).toBe(`key ${REDACTED} and ${REDACTED}x`);
    expect(scrub(`url postgres://u:${encodeURIComponent('p@ss/w"rd-long')}@h/db`)).toBe(`url postgres://u:${REDACTED}@h/db`);
    expect(scrub(JSON.stringify({ sql: 'p@ss/w"rd-long' }))).toBe(`{"sql":"${REDACTED}"}`);
    expect(scrub('a short word')).toBe('a short word');
    expect(secretScrubber([])('sk-test-SECRET-1')).toBe('sk-test-SECRET-1');
  });

  it('urlPassword reads the password of a connection URL, decoded; none when there is none or the URL is not one', () => {
    expect(urlPassword('postgres://datadesk:s%40cret-pw@127.0.0.1:5432/db')).toBe('s@cret-pw');
    expect(urlPassword('postgres://datadesk@127.0.0.1/db')).toBeUndefined();
    expect(urlPassword('not a url')).toBeUndefined();
    expect(urlPassword(undefined)).toBeUndefined();
  });
});
