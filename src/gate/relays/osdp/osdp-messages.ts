// Data layouts of the OSDP commands the CP sends and the replies it reads (SIA OSDP 2.2 field
// order; lengths match libosdp's CMD_*_DATA_LEN / REPLY_*_LEN). Multi-byte fields are little-endian.

export interface OutControl {
  output: number;
  /** OSDP output control code, e.g. 1 = permanent off, 2 = permanent on, 5 = temporary on. */
  control: number;
  /** Units of 100 ms. */
  timer: number;
}

export function outData(outputs: readonly OutControl[]): Uint8Array {
  return Uint8Array.from(outputs.flatMap((o) => [o.output, o.control, o.timer & 0xff, o.timer >> 8]));
}

/** osdp_OUT control codes (SIA OSDP 2.2 §6.7; libosdp's struct osdp_cmd_output). */
export const OutControlCode = {
  NOP: 0,
  PERMANENT_OFF_ABORT_TIMED: 1,
  PERMANENT_ON_ABORT_TIMED: 2,
  PERMANENT_OFF_AFTER_TIMED: 3,
  PERMANENT_ON_AFTER_TIMED: 4,
  TEMPORARY_ON: 5,
  TEMPORARY_OFF: 6,
} as const;

export function parseOut(d: Uint8Array): OutControl[] | null {
  if (d.length === 0 || d.length % 4 !== 0) return null;
  const outs: OutControl[] = [];
  for (let i = 0; i < d.length; i += 4)
    outs.push({ output: d[i]!, control: d[i + 1]!, timer: d[i + 2]! | (d[i + 3]! << 8) });
  return outs;
}

export interface BuzzerControl {
  reader: number;
  /** 0 = no tone, 1 = off, 2 = default tone. */
  tone: number;
  /** Units of 100 ms. */
  onTime: number;
  offTime: number;
  count: number;
}

export const BuzzerTone = { NONE: 0, OFF: 1, DEFAULT: 2 } as const;

export function buzData(b: BuzzerControl): Uint8Array {
  return Uint8Array.from([b.reader, b.tone, b.onTime, b.offTime, b.count]);
}

export function parseBuz(d: Uint8Array): BuzzerControl | null {
  if (d.length !== 5) return null;
  return { reader: d[0]!, tone: d[1]!, onTime: d[2]!, offTime: d[3]!, count: d[4]! };
}

export interface LedTemporary {
  control: number;
  onTime: number;
  offTime: number;
  onColor: number;
  offColor: number;
  /** Units of 100 ms. */
  timer: number;
}

export interface LedPermanent {
  control: number;
  onTime: number;
  offTime: number;
  onColor: number;
  offColor: number;
}

export const OsdpColor = { BLACK: 0, RED: 1, GREEN: 2, AMBER: 3, BLUE: 4 } as const;
/** Temporary: 0 keep, 1 cancel (show the permanent state), 2 set and start the timer. Permanent: 0 keep, 1 set. */
export const LedControl = { NOP: 0, TEMPORARY_CANCEL: 1, TEMPORARY_SET: 2, PERMANENT_SET: 1 } as const;

export interface LedCommand {
  reader: number;
  led: number;
  temporary: LedTemporary;
  permanent: LedPermanent;
}

export function parseLed(d: Uint8Array): LedCommand | null {
  if (d.length !== 14) return null;
  return {
    reader: d[0]!,
    led: d[1]!,
    temporary: {
      control: d[2]!,
      onTime: d[3]!,
      offTime: d[4]!,
      onColor: d[5]!,
      offColor: d[6]!,
      timer: d[7]! | (d[8]! << 8),
    },
    permanent: { control: d[9]!, onTime: d[10]!, offTime: d[11]!, onColor: d[12]!, offColor: d[13]! },
  };
}

export function ledData(reader: number, led: number, t: LedTemporary, p: LedPermanent): Uint8Array {
  return Uint8Array.from([
    reader,
    led,
    t.control,
    t.onTime,
    t.offTime,
    t.onColor,
    t.offColor,
    t.timer & 0xff,
    t.timer >> 8,
    p.control,
    p.onTime,
    p.offTime,
    p.onColor,
    p.offColor,
  ]);
}

export interface PdId {
  vendor: number;
  model: number;
  version: number;
  serial: number;
  firmware: string;
}

export function parsePdId(d: Uint8Array): PdId | null {
  if (d.length !== 12) return null;
  return {
    vendor: d[0]! | (d[1]! << 8) | (d[2]! << 16),
    model: d[3]!,
    version: d[4]!,
    serial: (d[5]! | (d[6]! << 8) | (d[7]! << 16) | (d[8]! << 24)) >>> 0,
    firmware: `${d[9]}.${d[10]}.${d[11]}`,
  };
}

export function pdIdData(id: PdId): Uint8Array {
  const fw = id.firmware.split('.').map(Number);
  return Uint8Array.from([
    id.vendor & 0xff,
    (id.vendor >> 8) & 0xff,
    (id.vendor >> 16) & 0xff,
    id.model,
    id.version,
    id.serial & 0xff,
    (id.serial >>> 8) & 0xff,
    (id.serial >>> 16) & 0xff,
    (id.serial >>> 24) & 0xff,
    fw[0] ?? 0,
    fw[1] ?? 0,
    fw[2] ?? 0,
  ]);
}

export interface PdCapability {
  function: number;
  compliance: number;
  count: number;
}

export function parsePdCap(d: Uint8Array): PdCapability[] | null {
  if (d.length % 3 !== 0) return null;
  const caps: PdCapability[] = [];
  for (let i = 0; i < d.length; i += 3) caps.push({ function: d[i]!, compliance: d[i + 1]!, count: d[i + 2]! });
  return caps;
}

export interface RawCard {
  reader: number;
  format: number;
  bitCount: number;
  data: Uint8Array;
}

export function pdCapData(caps: readonly PdCapability[]): Uint8Array {
  return Uint8Array.from(caps.flatMap((c) => [c.function, c.compliance, c.count]));
}

/** RAW card data; a QR reader in raw mode puts the code's bytes here. */
export function parseRaw(d: Uint8Array): RawCard | null {
  if (d.length < 4) return null;
  const bitCount = d[2]! | (d[3]! << 8);
  const data = d.slice(4);
  if (data.length !== Math.ceil(bitCount / 8)) return null;
  return { reader: d[0]!, format: d[1]!, bitCount, data };
}

export function parseKeypad(d: Uint8Array): { reader: number; keys: string } | null {
  if (d.length < 2 || d[1] !== d.length - 2) return null;
  return { reader: d[0]!, keys: String.fromCharCode(...d.subarray(2)) };
}

/** Bits are packed most significant first, so a text read of n bytes is n * 8 bits of those bytes. */
export function rawData(card: RawCard): Uint8Array {
  return Uint8Array.from([card.reader, card.format, card.bitCount & 0xff, card.bitCount >> 8, ...card.data]);
}

/** The code a QR reader sent as RAW: whole bytes of printable ASCII (tickets are ASCII), else null. */
export function rawCardText(card: RawCard): string | null {
  if (card.bitCount === 0 || card.bitCount % 8 !== 0) return null;
  for (const b of card.data) if (b < 0x20 || b > 0x7e) return null;
  return String.fromCharCode(...card.data);
}

/** osdp_FMT (deprecated in 2.2, still sent by older readers): reader, direction, length, ASCII. */
export function parseFmt(d: Uint8Array): { reader: number; text: string } | null {
  if (d.length < 3 || d[2] !== d.length - 3) return null;
  return { reader: d[0]!, text: String.fromCharCode(...d.subarray(3)) };
}

/** NAK reason codes (libosdp's get_nac_reason, SIA OSDP 2.2 §7.3). */
export const OsdpNakReason = {
  CHECK_CHARACTER: 1,
  COMMAND_LENGTH: 2,
  UNKNOWN_COMMAND: 3,
  SEQUENCE: 4,
  SC_UNSUPPORTED: 5,
  SC_CONDITIONS: 6,
  BIO_TYPE: 7,
  BIO_FORMAT: 8,
  RECORD: 9,
} as const;

const NAK_TEXT: Record<number, string> = {
  1: 'erro de CRC/checksum no comando recebido',
  2: 'tamanho de comando inválido',
  3: 'comando não suportado pelo leitor',
  4: 'número de sequência inesperado',
  5: 'o leitor não suporta o bloco de segurança recebido',
  6: 'o leitor exige canal seguro (secure channel), que não é suportado: configure-o em modo aberto',
  7: 'tipo biométrico não suportado',
  8: 'formato biométrico não suportado',
  9: 'o leitor não conseguiu executar o comando',
};

export const nakReasonText = (reason: number): string => NAK_TEXT[reason] ?? `motivo desconhecido (${reason})`;
