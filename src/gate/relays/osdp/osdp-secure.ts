import { createCipheriv, createDecipheriv, randomBytes, timingSafeEqual } from 'node:crypto';

// OSDP v2.2 secure channel (SCS, AES-128) for both ends of the wire: the box (CP) uses it in
// osdp-bus.ts, the test peripheral in test/support. Every function here is pinned by the SIA
// Annex E vectors and libosdp's unit-test vectors (test/gate/osdp-secure.test.ts); the algorithms
// follow libosdp src/osdp_sc.c and the packet layout src/osdp_phy.c.

/** SCBK-D, the published default key: only for install mode, to set the real key (KEYSET). */
export const SCBK_DEFAULT = Uint8Array.from({ length: 16 }, (_, i) => 0x30 + i);

/** Security block types (SCS_11..SCS_18). */
export const Scs = {
  CHLNG: 0x11,
  CCRYPT: 0x12,
  SCRYPT: 0x13,
  RMAC_I: 0x14,
  CMD_MAC: 0x15,
  REPLY_MAC: 0x16,
  CMD_ENC: 0x17,
  REPLY_ENC: 0x18,
} as const;

export const MAC_LEN = 4;
const EOM = 0x80;
const BLOCK = 16;

export interface SessionKeys {
  enc: Uint8Array;
  mac1: Uint8Array;
  mac2: Uint8Array;
}

function ecb(key: Uint8Array, block: Uint8Array): Uint8Array {
  const c = createCipheriv('aes-128-ecb', key, null).setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(block), c.final()]));
}

function cbc(encrypt: boolean, key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  const c = (encrypt ? createCipheriv : createDecipheriv)('aes-128-cbc', key, iv).setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

const concat = (...parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts));
const complement = (b: Uint8Array) => b.map((x) => ~x & 0xff);

export function parseScbk(hex: string): Uint8Array | null {
  const clean = hex.trim();
  return /^[0-9a-fA-F]{32}$/.test(clean) ? Uint8Array.from(Buffer.from(clean, 'hex')) : null;
}

export const newRandom = (): Uint8Array => new Uint8Array(randomBytes(8));

/** S-ENC, S-MAC1, S-MAC2 from the base key and the CP's challenge. */
export function deriveSessionKeys(scbk: Uint8Array, cpRandom: Uint8Array): SessionKeys {
  const derive = (a: number, b: number) =>
    ecb(scbk, concat(Uint8Array.of(a, b), cpRandom.subarray(0, 6), new Uint8Array(8)));
  return { enc: derive(0x01, 0x82), mac1: derive(0x01, 0x01), mac2: derive(0x01, 0x02) };
}

/** What the CP proves in SCRYPT: AES(S-ENC, pdRandom || cpRandom). */
export const cpCryptogram = (k: SessionKeys, pdRandom: Uint8Array, cpRandom: Uint8Array) =>
  ecb(k.enc, concat(pdRandom, cpRandom));
/** What the PD proves in CCRYPT: AES(S-ENC, cpRandom || pdRandom). */
export const pdCryptogram = (k: SessionKeys, cpRandom: Uint8Array, pdRandom: Uint8Array) =>
  ecb(k.enc, concat(cpRandom, pdRandom));
/** The first reply MAC (RMAC_I), the IV of the first secured command's MAC. */
export const initialRmac = (k: SessionKeys, cpCrypt: Uint8Array) => ecb(k.mac2, ecb(k.mac1, cpCrypt));

export const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && timingSafeEqual(a, b);

/**
 * The 16-byte MAC over a message: CBC with S-MAC1 over every block but the last, the last one
 * (padded with 0x80 0x00...) with S-MAC2. The first 4 bytes go on the wire.
 */
export function computeMac(k: SessionKeys, iv: Uint8Array, message: Uint8Array): Uint8Array {
  const full = Math.floor(message.length / BLOCK);
  const rem = message.length % BLOCK;
  const blocks = rem === 0 ? Math.max(full, 1) : full + 1;
  let chain = iv;
  for (let i = 0; i < blocks - 1; i++) chain = ecb(k.mac1, xor(message.subarray(i * BLOCK, (i + 1) * BLOCK), chain));
  const last = new Uint8Array(BLOCK);
  if (rem === 0 && full > 0) last.set(message.subarray((blocks - 1) * BLOCK));
  else {
    last.set(message.subarray(full * BLOCK));
    last[rem] = EOM;
  }
  return ecb(k.mac2, xor(last, chain));
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(BLOCK);
  for (let i = 0; i < BLOCK; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

/** A data block: 0x80 then zeros to a whole block, AES-CBC with S-ENC and the complement of `mac` as IV. */
export function encryptData(k: SessionKeys, mac: Uint8Array, plain: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil((plain.length + 1) / BLOCK) * BLOCK);
  padded.set(plain);
  padded[plain.length] = EOM;
  return cbc(true, k.enc, complement(mac), padded);
}

/** null when the length is not whole blocks or the padding is wrong (a wrong key or IV). */
export function decryptData(k: SessionKeys, mac: Uint8Array, cipher: Uint8Array): Uint8Array | null {
  if (cipher.length === 0 || cipher.length % BLOCK !== 0) return null;
  const plain = cbc(false, k.enc, complement(mac), cipher);
  let end = plain.length - 1;
  while (end > 0 && plain[end] === 0) end--;
  return plain[end] === EOM ? plain.slice(0, end) : null;
}
