/**
 * The ID card port's HTTP adapter (classes/Member/id-card-client.ts): its
 * answer validation as a pure function, and the adapter against a real local
 * HTTP server (time-outs, retries on 5xx only, 404 as "no card", malformed
 * answers, the API key header).
 */
import {
  IdCardClient,
  IdCardClientError,
  idCardClientConfig,
  MAX_CARD_PHOTO_BYTES,
  parseIdCard,
} from '../../classes/Member/id-card-client';
import { FakeIdCards, JPEG_HEAD, PNG_1PX } from './fake-id-card';

const KEY = 'card-secret';

// A second per attempt: a stall of the loaded test process must not time an attempt out (an extra retry
// would break the exact request counts); slow answers are held until the client gives up.
function client(cards: FakeIdCards, env: Record<string, string> = {}) {
  return new IdCardClient(
    idCardClientConfig({
      ID_CARD_BASE_URL: cards.url,
      ID_CARD_API_KEY: KEY,
      ID_CARD_TIMEOUT_MS: '1000',
      ID_CARD_RETRIES: '2',
      ID_CARD_RETRY_BASE_MS: '10',
      ...env,
    }),
  );
}

async function failure(p: Promise<unknown>): Promise<IdCardClientError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(IdCardClientError);
    return err as IdCardClientError;
  }
  throw new Error('expected a failure');
}

describe('parseIdCard', () => {
  const problems = (body: unknown, staffId?: string) => {
    const r = parseIdCard(body, staffId);
    return r.ok ? [] : r.problems;
  };

  test('a card with dates and a PNG or JPEG photo; a numeric card number is a string; empty dates and a null photo are absent', () => {
    expect(
      parseIdCard({
        cardNumber: ' C-1 ',
        validFrom: '2026-01-01',
        validUntil: '2029-01-01T00:00:00Z',
        photo: { contentBase64: PNG_1PX, mimeType: 'image/png' },
      }),
    ).toEqual({
      ok: true,
      card: {
        cardNumber: 'C-1',
        validFrom: '2026-01-01',
        validUntil: '2029-01-01T00:00:00Z',
        photo: { contentBase64: PNG_1PX, mimeType: 'image/png' },
      },
    });
    expect(parseIdCard({ cardNumber: 4711, validFrom: '', validUntil: null, photo: null })).toEqual({
      ok: true,
      card: { cardNumber: '4711' },
    });
    expect(
      parseIdCard({ cardNumber: 'C-2', photo: { contentBase64: JPEG_HEAD, mimeType: 'IMAGE/JPEG' } }),
    ).toMatchObject({ ok: true, card: { photo: { mimeType: 'image/jpeg' } } });
  });

  test('what is not a card: no object, no card number, dates that are not dates or out of order, another staff id', () => {
    expect(problems(null)).toEqual(['body is not an object']);
    expect(problems([{ cardNumber: 'C' }])).toEqual(['body is not an object']);
    expect(problems({})).toEqual([expect.stringContaining('cardNumber')]);
    expect(problems({ cardNumber: 'x'.repeat(65) })).toEqual([expect.stringContaining('cardNumber')]);
    expect(problems({ cardNumber: 'C', validFrom: 'next week', validUntil: '2026-02-30' })).toEqual([
      expect.stringContaining('validFrom'),
      expect.stringContaining('validUntil'),
    ]);
    expect(problems({ cardNumber: 'C', validFrom: '2027-01-01', validUntil: '2026-01-01' })).toEqual([
      'validUntil is before validFrom',
    ]);
    expect(problems({ cardNumber: 'C', staffId: 'E2' }, 'E1')).toEqual([expect.stringContaining("not 'E1'")]);
    expect(problems({ cardNumber: 'C', staffId: 'E1' }, 'E1')).toEqual([]);
  });

  test('a photo must be a PNG or JPEG, in Base64, whose bytes are what its type says, within the size bound', () => {
    const photo = (p: unknown) => problems({ cardNumber: 'C', photo: p });
    expect(photo('iVBOR')).toEqual([expect.stringContaining('photo must be an object')]);
    expect(photo({ contentBase64: PNG_1PX, mimeType: 'image/gif' })).toEqual([
      expect.stringContaining('image/png or image/jpeg'),
    ]);
    expect(photo({ contentBase64: '', mimeType: 'image/png' })).toEqual([expect.stringContaining('non-empty')]);
    expect(photo({ contentBase64: 'not base64!', mimeType: 'image/png' })).toEqual([
      expect.stringContaining('not Base64'),
    ]);
    expect(photo({ contentBase64: JPEG_HEAD, mimeType: 'image/png' })).toEqual(["photo's content is not a PNG image"]);
    expect(photo({ contentBase64: PNG_1PX, mimeType: 'image/jpeg' })).toEqual(["photo's content is not a JPEG image"]);
    const big = Buffer.alloc(MAX_CARD_PHOTO_BYTES + 1);
    Buffer.from(PNG_1PX, 'base64').copy(big);
    expect(photo({ contentBase64: big.toString('base64'), mimeType: 'image/png' })).toEqual([
      expect.stringContaining('larger than'),
    ]);
    const justFits = Buffer.alloc(MAX_CARD_PHOTO_BYTES);
    Buffer.from(PNG_1PX, 'base64').copy(justFits);
    expect(photo({ contentBase64: justFits.toString('base64'), mimeType: 'image/png' })).toEqual([]);
  });
});

describe('IdCardClient against a local ID card server', () => {
  let cards: FakeIdCards;
  beforeEach(async () => {
    cards = await new FakeIdCards().start();
  });
  afterEach(() => cards.stop());

  test('GET /cards/<staffId> with the API key as x-api-key; the card parsed', async () => {
    cards.cards.set('E 1/2', {
      staffId: 'E 1/2',
      cardNumber: 'C-12',
      validUntil: '2030-01-01',
      photo: { contentBase64: PNG_1PX, mimeType: 'image/png' },
    });
    expect(await client(cards).lookupCard('E 1/2')).toEqual({
      cardNumber: 'C-12',
      validUntil: '2030-01-01',
      photo: { contentBase64: PNG_1PX, mimeType: 'image/png' },
    });
    expect(cards.requests).toEqual([
      { path: '/cards/E%201%2F2', method: 'GET', headers: expect.objectContaining({ 'x-api-key': KEY }) },
    ]);
  });

  test('no API key configured: no x-api-key header', async () => {
    cards.cards.set('E1', { cardNumber: 'C-1' });
    await client(cards, { ID_CARD_API_KEY: '' }).lookupCard('E1');
    expect(cards.requests[0]!.headers['x-api-key']).toBeUndefined();
  });

  test('404 is "no card", not retried', async () => {
    expect(await client(cards).lookupCard('E-NONE')).toBeNull();
    expect(cards.count('E-NONE')).toBe(1);
  });

  test('503 and 429 are retried with backoff, then the card', async () => {
    cards.cards.set('E1', { cardNumber: 'C-1' });
    cards.answer({ status: 503 }, { status: 429 });
    expect(await client(cards).lookupCard('E1')).toEqual({ cardNumber: 'C-1' });
    expect(cards.count('E1')).toBe(3);
  });

  test('503 every time: unavailable after every attempt', async () => {
    cards.answer({ status: 503 }, { status: 503 }, { status: 503 });
    const err = await failure(client(cards).lookupCard('E1'));
    expect(err).toMatchObject({ kind: 'http', status: 503, attempts: 3, unavailable: true });
    expect(cards.count('E1')).toBe(3);
  });

  test('other 4xx are refusals: not retried', async () => {
    for (const status of [400, 401, 403]) {
      cards.answer({ status, body: { message: 'no' } });
      const err = await failure(client(cards).lookupCard('E1'));
      expect(err).toMatchObject({ kind: 'http', status, attempts: 1, unavailable: false });
      expect(err.message).not.toContain(KEY);
    }
    expect(cards.count('E1')).toBe(3);
  });

  test('a slow card system: each attempt times out, retried, then a timeout error', async () => {
    cards.answer({ hold: true }, { hold: true }, { hold: true });
    const err = await failure(client(cards, { ID_CARD_TIMEOUT_MS: '200' }).lookupCard('E1'));
    expect(err).toMatchObject({ kind: 'timeout', attempts: 3, unavailable: true });
    expect(cards.count('E1')).toBe(3);
  });

  test("the caller's deadline ends the call: no further attempt", async () => {
    cards.answer({ hold: true }, { hold: true }, { hold: true });
    const err = await failure(client(cards, { ID_CARD_TIMEOUT_MS: '5000' }).lookupCard('E1', AbortSignal.timeout(150)));
    expect(err).toMatchObject({ kind: 'timeout', attempts: 1 });
    expect(cards.count('E1')).toBe(1);
  });

  test('malformed answers are errors (bad_response), not retried, never a crash', async () => {
    cards.answer(
      { status: 200, raw: 'not json' },
      { status: 200, body: { number: 'C-1' } },
      { status: 200, body: { cardNumber: 'C-1', photo: { contentBase64: PNG_1PX, mimeType: 'image/gif' } } },
      { status: 200, raw: '' },
    );
    for (const expected of ['non-JSON', 'cardNumber', 'image/png or image/jpeg', 'body is not an object']) {
      const err = await failure(client(cards).lookupCard('E1'));
      expect(err).toMatchObject({ kind: 'bad_response', attempts: 1, unavailable: false });
      expect(err.message).toContain(expected);
    }
    expect(cards.count('E1')).toBe(4);
  });

  test('a card for another staff id is refused', async () => {
    cards.cards.set('E1', { staffId: 'E9', cardNumber: 'C-9' });
    expect(await failure(client(cards).lookupCard('E1'))).toMatchObject({ kind: 'bad_response' });
  });

  test('unreachable: network errors are retried, then reported', async () => {
    const url = cards.url;
    await cards.stop();
    const err = await failure(
      new IdCardClient(
        idCardClientConfig({ ID_CARD_BASE_URL: url, ID_CARD_RETRIES: '1', ID_CARD_RETRY_BASE_MS: '1' }),
      ).lookupCard('E1'),
    );
    expect(err).toMatchObject({ kind: 'network', attempts: 2, unavailable: true });
  });

  test('not configured: the port says so, and a lookup fails as not_configured', async () => {
    const none = new IdCardClient(idCardClientConfig({}));
    expect(none.configured).toBe(false);
    expect(await failure(none.lookupCard('E1'))).toMatchObject({ kind: 'not_configured' });
    expect(client(cards).configured).toBe(true);
  });
});

describe('idCardClientConfig', () => {
  test('defaults, overrides and refusals', () => {
    expect(idCardClientConfig({})).toEqual({
      baseUrl: undefined,
      apiKey: undefined,
      timeoutMs: 3000,
      retries: 1,
      retryBaseMs: 200,
    });
    expect(
      idCardClientConfig({
        ID_CARD_BASE_URL: ' http://cards.local/api/ ',
        ID_CARD_API_KEY: 'k',
        ID_CARD_TIMEOUT_MS: '800',
        ID_CARD_RETRIES: '0',
      }),
    ).toEqual({
      baseUrl: 'http://cards.local/api',
      apiKey: 'k',
      timeoutMs: 800,
      retries: 0,
      retryBaseMs: 200,
    });
    expect(() => idCardClientConfig({ ID_CARD_BASE_URL: 'ftp://x' })).toThrow('ID_CARD_BASE_URL');
    expect(() => idCardClientConfig({ ID_CARD_TIMEOUT_MS: 'soon' })).toThrow('ID_CARD_TIMEOUT_MS');
    expect(() => idCardClientConfig({ ID_CARD_RETRIES: '-1' })).toThrow('ID_CARD_RETRIES');
  });
});
