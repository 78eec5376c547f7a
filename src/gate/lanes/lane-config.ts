import { z } from 'zod';
import { areaName, PARK_AREA, type MovePolicy } from '../../checkin/movement.settings.js';
import { BAUD_DEFAULT, baud, failModeSchema, ms, relaySchema, serialPath } from '../relays/relay-config.js';
import { DEFAULT_MAX_CODE_LENGTH } from './scanner-lines.js';

// The lanes file named by GATE_CONFIG (docs/lanes.md has a full example). Objects are strict so a
// misspelt field is an error, not a silently ignored setting at a turnstile.

export const scannerSchema = z
  .strictObject({
    path: serialPath,
    baud: baud.default(BAUD_DEFAULT.scanner),
    suffix: z.enum(['cr', 'lf', 'crlf', 'none']).default('cr'),
    interByteTimeoutMs: ms(0, 5_000).default(50),
    stripAimId: z.boolean().default(false),
    maxLength: z.number().int().min(8).max(4096).default(DEFAULT_MAX_CODE_LENGTH),
  })
  .refine((s) => s.suffix !== 'none' || s.interByteTimeoutMs > 0, {
    path: ['interByteTimeoutMs'],
    message: 'com suffix none o tempo entre bytes precisa ser maior que zero',
  });

const reentrada = z.enum(['nao', 'mesmo_dia'], { error: 'use nao ou mesmo_dia' });
const saidaSemEntrada = z.enum(['liberar', 'negar'], { error: 'use liberar ou negar' });

export const laneSchema = z
  .strictObject({
    name: z.string().trim().min(1, 'informe o nome da pista (é o terminal no registro de eventos)').max(64),
    direction: z.enum(['entrada', 'saida'], { error: 'use entrada ou saida' }),
    // The lane group it leads into or out of (docs/lanes.md, "Movements"); default the whole park.
    area: areaName.default(PARK_AREA),
    // Unset: the file's (the tenant's) policy.
    reentrada: reentrada.optional(),
    saidaSemEntrada: saidaSemEntrada.optional(),
    operador: z.string().trim().min(1, 'informe o operador registrado nos check-ins da pista').max(64),
    // An OSDP reader that sends the QR as card data is the lane's scanner: then no serial scanner is needed.
    scanners: z.array(scannerSchema).default([]),
    relay: relaySchema,
    passage: z.strictObject({ timeoutMs: ms(1_000, 120_000) }).optional(),
    debounceMs: ms(0, 60_000).default(2_000),
    failMode: failModeSchema.default('travada'),
  })
  .refine((l) => l.scanners.length > 0 || l.relay.driver === 'osdp', {
    path: ['scanners'],
    message: 'a pista precisa de pelo menos um leitor (só uma pista OSDP pode usar o leitor OSDP como único leitor)',
  });

export const laneConfigSchema = z.strictObject({
  // The tenant's movement policies; a lane may override them.
  reentrada: reentrada.default('nao'),
  saidaSemEntrada: saidaSemEntrada.default('liberar'),
  areas: z.record(areaName, z.strictObject({ capacidade: z.number().int().min(1).max(1_000_000) })).default({}),
  lanes: z.array(laneSchema).min(1, 'configure pelo menos uma pista'),
});

export type LaneConfigFile = z.infer<typeof laneConfigSchema>;
export type LaneConfig = LaneConfigFile['lanes'][number];
export type ScannerConfig = LaneConfig['scanners'][number];

/** What a lane's scans mean: its direction and area, its (or the tenant's) policies, the area's capacity. */
export function movePolicy(
  file: Pick<LaneConfigFile, 'reentrada' | 'saidaSemEntrada' | 'areas'>,
  lane: LaneConfig,
): MovePolicy {
  return {
    direction: lane.direction,
    area: lane.area,
    reentrada: lane.reentrada ?? file.reentrada,
    saidaSemEntrada: lane.saidaSemEntrada ?? file.saidaSemEntrada,
    capacity: file.areas[lane.area]?.capacidade ?? null,
  };
}
