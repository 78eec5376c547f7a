import crypto from 'node:crypto';

// A QR as the day data names it (docs/handheld.md): the first 22 characters of the base64url SHA-256 of
// "gate-qr\n" + the code (132 bits). The device computes the same with WebCrypto for what it scans
// (src/handheld/web/qr-hash.ts); both are pinned by the same vectors (test/handheld/qr-hash.test.ts).
export const QR_HASH_PREFIX = 'gate-qr\n';
export const QR_HASH_LENGTH = 22;

export const qrHash = (code: string): string =>
  crypto
    .createHash('sha256')
    .update(QR_HASH_PREFIX + code)
    .digest('base64url')
    .slice(0, QR_HASH_LENGTH);
