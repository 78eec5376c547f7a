import { hash } from 'node:crypto';

/**
 * The first 8 hex of a QR code's SHA-256, what log lines carry instead of the code: a QR is a bearer
 * ticket, and 8 hex are enough to follow one code through a log. The one-shot hash: no Hash object per scan.
 */
export const codeHash = (code: string) => hash('sha256', code, 'hex').slice(0, 8);
