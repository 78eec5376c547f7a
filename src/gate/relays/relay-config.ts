import { z } from 'zod';
import { FAIL_MODES } from './relay.js';

// Each relay driver's part of the lanes file (GATE_CONFIG), and the serial settings every port of the
// file shares. Objects are strict so a misspelt field is an error, not a silently ignored setting.

/** A baud rate left out of the file: each device's usual speed. */
export const BAUD_DEFAULT = { scanner: 9600, bridge: 115200, lcus: 9600, osdp: 9600 } as const;

export const ms = (min: number, max: number) => z.number().int().min(min).max(max);

// Any absolute path (a pty from socat or ser2net is one too); the lanes file warns about unstable ones.
export const serialPath = z
  .string()
  .trim()
  .regex(/^\/\S+$/, 'use um caminho de dispositivo absoluto, de preferência /dev/serial/by-id/...');
export const baud = z.union(
  [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400].map((b) => z.literal(b)),
  {
    error: 'velocidade (baud) não suportada: use 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200 ou 230400',
  },
);
const pulseMs = ms(50, 10_000).default(500);

const bridgeRelay = z.strictObject({
  driver: z.literal('bridge'),
  path: serialPath,
  baud: baud.default(BAUD_DEFAULT.bridge),
  pulseMs,
  heartbeatTimeoutMs: ms(100, 60_000).default(3_000),
});

const lcusRelay = z.strictObject({
  driver: z.literal('lcus'),
  path: serialPath,
  baud: baud.default(BAUD_DEFAULT.lcus),
  pulseMs,
  channel: z.number().int().min(1).max(8).default(1),
});

export const scbkText = z
  .string()
  .regex(/^\s*[0-9a-fA-F]{32}\s*$/, 'a chave (SCBK) tem 32 dígitos hexadecimais (16 bytes)');

const osdpRelay = z
  .strictObject({
    driver: z.literal('osdp'),
    path: serialPath,
    baud: baud.default(BAUD_DEFAULT.osdp),
    pulseMs,
    // 0x7F is the OSDP broadcast address: never a single lane's device.
    address: z.number().int().min(0).max(126),
    output: z.number().int().min(0).max(255).default(0),
    // Secure channel: the PD's key inline, or (better) in a file readable only by the service.
    scbk: scbkText.optional(),
    scbkFile: z.string().trim().min(1).optional(),
    // The PD may still have the default key SCBK-D: the box gives it `scbk` (KEYSET). Commissioning only.
    installMode: z.boolean().default(false),
  })
  .refine((r) => !(r.scbk && r.scbkFile), { path: ['scbkFile'], message: 'use scbk ou scbkFile, não os dois' })
  .refine((r) => !r.installMode || r.scbk || r.scbkFile, {
    path: ['installMode'],
    message: 'o modo de instalação precisa da chave a gravar no leitor (scbk ou scbkFile)',
  });

export const relaySchema = z.discriminatedUnion('driver', [bridgeRelay, lcusRelay, osdpRelay], {
  error: 'driver de relé desconhecido: use bridge, lcus ou osdp',
});

export const failModeSchema = z.enum(FAIL_MODES, { error: 'use travada ou livre' });

export type RelayConfig = z.infer<typeof relaySchema>;
export type BridgeRelayConfig = Extract<RelayConfig, { driver: 'bridge' }>;
export type LcusRelayConfig = Extract<RelayConfig, { driver: 'lcus' }>;
export type OsdpRelayConfig = Extract<RelayConfig, { driver: 'osdp' }>;
