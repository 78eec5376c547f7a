import { describe, expect, it } from 'vitest';
import { qrHash as boxHash } from '../../../src/handheld/qr-hash.js';
import { qrHash } from '../../../src/handheld/web/qr-hash.js';

// The device's WebCrypto hash (run here on Node's globalThis.crypto.subtle, the same API) against the box's vectors.
const VECTORS: [string, string][] = [
  ['3f2b8c1e-4a5d-4e6f-9a0b-1c2d3e4f5a6b', 'BzTzouDdY9bpP1rJ5kKIFp'],
  ['20261126-0001', 'rP2oWHkWGrNFOTg9hJuY3l'],
  ['ADIC0000000001', '6I6Gu96IhsSyTc1asaTOiy'],
  ['ção', 'Pw9-0snnX5dj35afZYjcj9'],
];

describe('qrHash in the app', () => {
  it.each(VECTORS)('%s → %s', async (code, hash) => {
    expect(await qrHash(code)).toBe(hash);
    expect(boxHash(code)).toBe(hash);
  });

  it('agrees with the box on other codes', async () => {
    for (const code of ['', 'a', 'x'.repeat(256), '😀 emoji', '20261126-0001\n'])
      expect(await qrHash(code)).toBe(boxHash(code));
  });
});
