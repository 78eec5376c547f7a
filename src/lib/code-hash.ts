import { createHash } from 'node:crypto';

/**
 * The first 8 hex of a QR code's SHA-256, what log lines carry instead of the code: a QR is a bearer
 * ticket, and 8 hex are enough to follow one code through a log.
 */
export const codeHash = (code: string) => createHash('sha256').update(code).digest('hex').slice(0, 8);
