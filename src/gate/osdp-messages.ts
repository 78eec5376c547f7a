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

export interface BuzzerControl {
  reader: number;
  /** 0 = no tone, 1 = off, 2 = default tone. */
  tone: number;
  /** Units of 100 ms. */
  onTime: number;
  offTime: number;
  count: number;
}

export function buzData(b: BuzzerControl): Uint8Array {
  return Uint8Array.from([b.reader, b.tone, b.onTime, b.offTime, b.count]);
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

export function ledData(reader: number, led: number, t: LedTemporary, p: LedPermanent): Uint8Array {
  return Uint8Array.from([
    reader, led,
    t.control, t.onTime, t.offTime, t.onColor, t.offColor, t.timer & 0xff, t.timer >> 8,
    p.control, p.onTime, p.offTime, p.onColor, p.offColor,
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

