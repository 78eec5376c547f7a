import { z } from 'zod';
import type { HandheldSpec } from './handheld/handheld.start.js';

// GATE_HANDHELD*: the handhelds' app and endpoints (docs/handheld.md). Off by default: a box turns them on once it
// serves HTTPS, which the app's service worker, camera and durable storage need (src/config.ts checks it).

const flag = z
  .enum(['true', 'false', 'on', 'off', '1', '0'], { message: 'use true ou false' })
  .transform((v) => ['true', 'on', '1'].includes(v));

export const handheldConfigSchema = z.object({
  GATE_HANDHELD: flag.default(false),
  GATE_HANDHELD_TIMEOUT_MS: z.coerce
    .number()
    .int('deve ser um número inteiro de milissegundos')
    .min(100, 'no mínimo 100 ms')
    .max(10_000, 'no máximo 10000 ms')
    .default(800),
  GATE_HANDHELD_NOMES: flag.default(false),
});

type HandheldEnv = z.output<typeof handheldConfigSchema> & {
  GATE_TLS_CERT?: string | undefined;
  GATE_TLS_DIR?: string | undefined;
};

/** The handhelds' spec, or undefined when off; `missing` names what stops it from turning on. */
export function handheldConfigOf(
  c: HandheldEnv,
  missing: (name: string, why: string) => void,
): HandheldSpec | undefined {
  if (!c.GATE_HANDHELD) return undefined;
  if (c.GATE_TLS_CERT === undefined && c.GATE_TLS_DIR === undefined)
    missing(
      'GATE_HANDHELD',
      'os handhelds precisam de HTTPS: configure o certificado da caixa (GATE_TLS_DIR, ou GATE_TLS_CERT e GATE_TLS_KEY; docs/handheld.md) antes de ligá-los',
    );
  return Object.freeze({ timeoutMs: c.GATE_HANDHELD_TIMEOUT_MS, names: c.GATE_HANDHELD_NOMES });
}
