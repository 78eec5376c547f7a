import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../../config.js';
import { describeIssues } from '../../lib/zod-issues.js';
import { areaName, PARK_AREA, type MovePolicy } from '../../checkin/movement.settings.js';
import { BAUD_DEFAULT, baud, failModeSchema, ms, relaySchema, scbkText, serialPath } from '../relays/relay-config.js';
import { DEFAULT_MAX_CODE_LENGTH } from './scanner-lines.js';

// The lanes file named by GATE_CONFIG (docs/lanes.md has a full example). Objects are strict so a
// misspelt field is an error, not a silently ignored setting at a turnstile.

const STABLE_PATH = /^\/dev\/serial\/by-(id|path)\//;

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

/** A ConfigError: `gate serve` prints it and exits with the usage code, like a bad variable. */
export class LaneConfigError extends ConfigError {}

export interface LoadedLaneConfig {
  config: LaneConfigFile;
  /** Not fatal, but worth a line in the log at startup (e.g. unstable serial paths). */
  warnings: string[];
}

const ptErrors = z.locales.ptBR().localeError;

export function loadLaneConfig(file: string): LoadedLaneConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new LaneConfigError(
      `Configuração das pistas (${file}): não foi possível ler o arquivo: ${(err as Error).message}`,
    );
  }
  return parseLaneConfig(text, file);
}

/** `name` is the file name: it chooses the format by extension and appears in every message. */
export function parseLaneConfig(text: string, name: string): LoadedLaneConfig {
  const fail = (lines: string[]) =>
    new LaneConfigError(`Configuração das pistas inválida (${name}):\n${lines.map((l) => `  ${l}`).join('\n')}`);
  let raw: unknown;
  try {
    raw = isJson(text, name) ? JSON.parse(text) : YAML.parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    throw fail([`não é um ${isJson(text, name) ? 'JSON' : 'YAML'} válido: ${(err as Error).message}`]);
  }
  const parsed = laneConfigSchema.safeParse(raw, { error: ptErrors });
  if (!parsed.success) throw fail(describeIssues(parsed.error));
  const conflicts = pathConflicts(parsed.data);
  if (conflicts.length > 0) throw fail(conflicts);
  const warnings = unstablePaths(parsed.data, name);
  const keyErrors = readKeyFiles(parsed.data, name, warnings);
  if (keyErrors.length > 0) throw fail(keyErrors);
  return { config: parsed.data, warnings };
}

/** Puts each scbkFile's key into scbk. Messages name the file, never its content. */
function readKeyFiles({ lanes }: LaneConfigFile, name: string, warnings: string[]): string[] {
  const errors: string[] = [];
  lanes.forEach((lane, i) => {
    const r = lane.relay;
    if (r.driver !== 'osdp') return;
    const at = `lanes[${i}].relay`;
    if (r.installMode)
      warnings.push(
        `${name}: ${at}.installMode: o leitor OSDP pode receber a chave pelo canal com a chave padrão (SCBK-D); desligue após a instalação`,
      );
    if (!r.scbkFile) return;
    const file = path.resolve(path.dirname(name), r.scbkFile);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
      if ((fs.statSync(file).mode & 0o077) !== 0)
        warnings.push(`${name}: ${at}.scbkFile = ${file} pode ser lido por outros usuários: use chmod 600`);
    } catch (err) {
      errors.push(`${at}.scbkFile: não foi possível ler ${file}: ${(err as NodeJS.ErrnoException).code ?? 'erro'}`);
      return;
    }
    if (!scbkText.safeParse(text).success)
      errors.push(`${at}.scbkFile: ${file} não contém uma chave de 32 dígitos hexadecimais`);
    else r.scbk = text.trim();
  });
  return errors;
}

function isJson(text: string, name: string): boolean {
  const ext = path.extname(name).toLowerCase();
  if (ext === '.json') return true;
  if (ext === '.yaml' || ext === '.yml') return false;
  return /^\s*[{[]/.test(text);
}

interface PortUse {
  at: string;
  lane: string;
  osdpAddress: number | null;
  baud: number;
}

/** Duplicate lane names; a serial port opened twice. Only OSDP relays share a bus, each at its own address. */
function pathConflicts({ lanes }: LaneConfigFile): string[] {
  const errors: string[] = [];
  const names = new Map<string, number>();
  lanes.forEach((lane, i) => {
    const first = names.get(lane.name);
    if (first !== undefined)
      errors.push(`lanes[${i}].name: pista "${lane.name}" repetida (já usada em lanes[${first}])`);
    else names.set(lane.name, i);
  });
  const ports = new Map<string, PortUse[]>();
  const use = (p: string, u: PortUse) => {
    const uses = ports.get(p) ?? [];
    for (const prev of uses) {
      const sharedBus = u.osdpAddress !== null && prev.osdpAddress !== null && u.osdpAddress !== prev.osdpAddress;
      if (sharedBus && u.baud !== prev.baud) {
        errors.push(
          `${u.at}: barramento OSDP ${p} com velocidade ${u.baud} aqui e ${prev.baud} em ${prev.at} (pista "${prev.lane}"): use a mesma`,
        );
        break;
      }
      if (sharedBus) continue;
      const why =
        u.osdpAddress !== null && prev.osdpAddress !== null
          ? `mesmo endereço OSDP ${u.osdpAddress}`
          : 'uma porta serial só pode ser aberta por um dispositivo';
      errors.push(`${u.at}: porta ${p} já usada em ${prev.at} (pista "${prev.lane}"): ${why}`);
      break;
    }
    ports.set(p, [...uses, u]);
  };
  lanes.forEach((lane, i) => {
    lane.scanners.forEach((s, j) =>
      use(s.path, { at: `lanes[${i}].scanners[${j}].path`, lane: lane.name, osdpAddress: null, baud: s.baud }),
    );
    const r = lane.relay;
    use(r.path, {
      at: `lanes[${i}].relay.path`,
      lane: lane.name,
      osdpAddress: r.driver === 'osdp' ? r.address : null,
      baud: r.baud,
    });
  });
  return errors;
}

function unstablePaths({ lanes }: LaneConfigFile, name: string): string[] {
  const warnings: string[] = [];
  const check = (p: string, at: string) => {
    if (!STABLE_PATH.test(p))
      warnings.push(
        `${name}: ${at} = ${p} não é um caminho estável; após reinício ou troca de USB pode apontar para outro dispositivo. Use /dev/serial/by-id/... ou /dev/serial/by-path/...`,
      );
  };
  lanes.forEach((lane, i) => {
    lane.scanners.forEach((s, j) => check(s.path, `lanes[${i}].scanners[${j}].path`));
    check(lane.relay.path, `lanes[${i}].relay.path`);
    if (lane.relay.driver === 'lcus')
      warnings.push(`${name}: lanes[${i}].relay: relé LCUS não tem retorno nem modo de falha seguro (somente escrita)`);
  });
  return warnings;
}
