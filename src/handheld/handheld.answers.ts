import { z } from 'zod';
import {
  dayData,
  deviceStateAnswer,
  handheldDevice,
  pairAnswer,
  pairingAnswer,
  scanAnswer,
  uploadAnswer,
} from './handheld.schemas.js';

// The handheld endpoints' answers in the spec's success envelope: the one description /docs shows and the routes'
// 200 response schemas (answer-schemas.ts).

const ok = <T extends z.ZodType>(data: T) => z.strictObject({ success: z.literal(true), data });

export const handheldAnswers = {
  pair: ok(pairAnswer),
  dayData: ok(dayData),
  scan: ok(scanAnswer),
  upload: ok(uploadAnswer),
  state: ok(deviceStateAnswer),
  pairing: ok(pairingAnswer),
  devices: ok(z.strictObject({ aparelhos: z.array(handheldDevice), alarmes: z.number().int().min(0) })),
  revoked: ok(z.strictObject({ id: z.number().int(), revogado: z.literal(true) })),
};
