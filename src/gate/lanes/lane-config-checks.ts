import fs from 'node:fs';
import path from 'node:path';
import { BAUD_DEFAULT, scbkText } from '../relays/relay-config.js';
import type { LaneConfigFile } from './lane-config.js';

// The lanes file's checks beyond its schema: names and ports used twice, key files, unstable paths.

const STABLE_PATH = /^\/dev\/serial\/by-(id|path)\//;

/** Puts each scbkFile's key into scbk. Messages name the file, never its content. */
export function readKeyFiles({ lanes }: LaneConfigFile, name: string, warnings: string[]): string[] {
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

interface PortUse {
  at: string;
  lane: string;
  osdpAddress: number | null;
  baud: number;
}

/** What the name and port checks need of one lane, read from the file as written (it may be invalid). */
export interface LanePorts {
  name: string | undefined;
  scanners: ({ path: string; baud: number } | undefined)[];
  relay: { path: string; baud: number; osdpAddress: number | null } | undefined;
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const DRIVERS = ['bridge', 'lcus', 'osdp'] as const;

/** Each lane's name and ports with the schema's defaults; a missing or mistyped one is left out. */
export function lanePorts(raw: unknown): LanePorts[] {
  const lanes = record(raw).lanes;
  if (!Array.isArray(lanes)) return [];
  return lanes.map((item) => {
    const lane = record(item);
    const relay = record(lane.relay);
    const driver = DRIVERS.find((d) => d === relay.driver);
    const relayPath = text(relay.path);
    const baudOr = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);
    return {
      name: text(lane.name),
      scanners: (Array.isArray(lane.scanners) ? lane.scanners : []).map((sc) => {
        const scanner = record(sc);
        const path = text(scanner.path);
        return path === undefined ? undefined : { path, baud: baudOr(scanner.baud, BAUD_DEFAULT.scanner) };
      }),
      relay:
        relayPath === undefined || driver === undefined
          ? undefined
          : {
              path: relayPath,
              baud: baudOr(relay.baud, BAUD_DEFAULT[driver]),
              osdpAddress: driver === 'osdp' && typeof relay.address === 'number' ? relay.address : null,
            },
    };
  });
}

/** Duplicate lane names; a serial port opened twice. Only OSDP relays share a bus, each at its own address. */
export function pathConflicts(lanes: LanePorts[]): string[] {
  const errors: string[] = [];
  const names = new Map<string, number>();
  lanes.forEach((lane, i) => {
    if (lane.name === undefined) return;
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
    const name = lane.name ?? '?';
    lane.scanners.forEach((s, j) => {
      if (s) use(s.path, { at: `lanes[${i}].scanners[${j}].path`, lane: name, osdpAddress: null, baud: s.baud });
    });
    const r = lane.relay;
    if (r) use(r.path, { at: `lanes[${i}].relay.path`, lane: name, osdpAddress: r.osdpAddress, baud: r.baud });
  });
  return errors;
}

export function unstablePaths({ lanes }: LaneConfigFile, name: string): string[] {
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
