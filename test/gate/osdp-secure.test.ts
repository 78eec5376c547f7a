import { describe, expect, it } from 'vitest';
import { decodeOsdp, encodeOsdp, OsdpCommand, type OsdpPacket } from '../../src/gate/relays/osdp/osdp-codec.js';
import {
  SCBK_DEFAULT,
  Scs,
  computeMac,
  cpCryptogram,
  decryptData,
  deriveSessionKeys,
  encryptData,
  initialRmac,
  parseScbk,
  pdCryptogram,
  type SessionKeys,
} from '../../src/gate/relays/osdp/osdp-secure.js';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// Vectors copied from libosdp (goToMain/libosdp @ 45d03d81c75f):
// - tests/unit-tests/test-sc-sia-vectors.c: SIA OSDP 2.2 Annex E (SCBK-D, session keys, cryptograms, RMAC-I);
// - tests/unit-tests/test-sc.c: NIST SP 800-38A F.2.1 AES-128-CBC and the OSDP MAC/data-block vectors derived from it.
describe('OSDP secure channel: SIA Annex E vectors', () => {
  const cpRandom = bytes('b0 b1 b2 b3 b4 b5 b6 b7');
  const pdRandom = bytes('a0 a1 a2 a3 a4 a5 a6 a7');
  const keys = deriveSessionKeys(SCBK_DEFAULT, cpRandom);

  it('SCBK-D is 30..3F', () => {
    expect(hex(SCBK_DEFAULT)).toBe('303132333435363738393a3b3c3d3e3f');
  });

  it('session keys from SCBK-D and the CP random', () => {
    expect(hex(keys.mac1)).toBe('5e86c676603bdee2d8beafe178637332');
    expect(hex(keys.mac2)).toBe('6fda86e857777e81132035758239172e');
    expect(hex(keys.enc)).toBe('bf8dc2a8329acb8c67c6d0cd9a451682');
  });

  it('host (CP) and client (PD) cryptograms, and RMAC-I', () => {
    const cp = cpCryptogram(keys, pdRandom, cpRandom);
    expect(hex(cp)).toBe('26d3356e07762d262801fc8e6665a891');
    expect(hex(pdCryptogram(keys, cpRandom, pdRandom))).toBe('fde5d2f428ec16312471ea3c02bd7796');
    expect(hex(initialRmac(keys, cp))).toBe('b2a30057eb98ba2229ec1f875662b524');
  });

  it('another base key gives other session keys', () => {
    const other = deriveSessionKeys(bytes('00112233445566778899aabbccddeeff'), cpRandom);
    expect(hex(other.enc)).not.toBe(hex(keys.enc));
  });
});

describe('OSDP secure channel: MAC and data blocks (libosdp test-sc.c)', () => {
  const key = bytes('2b7e151628aed2a6abf7158809cf4f3c');
  const iv = bytes('000102030405060708090a0b0c0d0e0f');
  const pt4 = bytes(`6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
    30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710`);
  const macKeys: SessionKeys = { enc: key, mac1: key, mac2: key };
  // encryptData uses the complement of a MAC as IV: pass the complement of the NIST IV.
  const notIv = iv.map((b) => ~b & 0xff);

  it('MAC of one whole block is its AES-CBC block', () => {
    expect(hex(computeMac(macKeys, iv, pt4.subarray(0, 16)))).toBe('7649abac8119b246cee98e9b12e9197d');
  });

  it('MAC of four blocks is the last AES-CBC block', () => {
    expect(hex(computeMac(macKeys, iv, pt4))).toBe('3ff1caa1681fac09120eca307586e1a7');
  });

  it('MAC of a partial block pads with 80 00...', () => {
    expect(hex(computeMac(macKeys, iv, bytes('000102030405060708090a0b0c0d0e')))).toBe(
      'c5311f3d23d086ea86f5ee7f85247b40',
    );
  });

  it('data blocks: 15 bytes, 16 bytes and empty, both ways', () => {
    const cases: [string, string][] = [
      ['000102030405060708090a0b0c0d0e', 'c5311f3d23d086ea86f5ee7f85247b40'],
      ['000102030405060708090a0b0c0d0e0f', '7df76b0c1ab899b33e42f047b91b546fe2fe5bd6c1dfcdd19124f03e1a134d3b'],
      ['', '4c08220c79d9191022dc6674874ceaf8'],
    ];
    for (const [plain, cipher] of cases) {
      expect(hex(encryptData(macKeys, notIv, bytes(plain)))).toBe(cipher);
      if (plain) expect(hex(decryptData(macKeys, notIv, bytes(cipher))!)).toBe(plain);
    }
  });

  it('a data block that is not whole blocks, or has no end marker, does not decrypt', () => {
    expect(decryptData(macKeys, notIv, new Uint8Array(15))).toBeNull();
    // The NIST ciphertext of a block without the 0x80 padding: it decrypts to bytes with no end marker.
    expect(decryptData(macKeys, notIv, bytes('7649abac8119b246cee98e9b12e9197d'))).toBeNull();
  });
});

describe('secure packets on the wire', () => {
  const keys = deriveSessionKeys(bytes('00112233445566778899aabbccddeeff'), bytes('0102030405060708'));
  const rmac = bytes('b2a30057eb98ba2229ec1f875662b524');

  it('an SCS_17 command: encrypted OUT, MAC over SOM..data, length counts MAC and CRC', () => {
    const out = bytes('00 02 00 00');
    const packet: OsdpPacket = {
      address: 1,
      reply: false,
      sequence: 2,
      useCrc: true,
      code: OsdpCommand.OUT,
      data: encryptData(keys, rmac, out),
      scb: { type: Scs.CMD_ENC, data: new Uint8Array(0) },
    };
    let mac: Uint8Array | null = null;
    const wire = encodeOsdp(packet, { sign: (signed) => (mac = computeMac(keys, rmac, signed)) });
    // mark, SOM, addr, len(2), ctrl(seq 2 | CRC | SCB), SCB(02 17), code, 16 encrypted bytes, MAC(4), CRC(2)
    expect(wire.length).toBe(1 + 5 + 2 + 1 + 16 + 4 + 2);
    expect(hex(wire.subarray(0, 9))).toBe('ff53011e000e021768');
    const decoded = decodeOsdp(wire);
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.packet.scb?.type).toBe(Scs.CMD_ENC);
    expect(hex(decoded.packet.mac!)).toBe(hex(mac!.subarray(0, 4)));
    expect(hex(computeMac(keys, rmac, decoded.packet.signed!).subarray(0, 4))).toBe(hex(decoded.packet.mac!));
    expect(hex(decryptData(keys, rmac, decoded.packet.data)!)).toBe(hex(out));
  });

  it('parses the SCS_12 (CCRYPT, checksum) and SCS_14 (RMAC_I, CRC) fixtures of libosdp test-cp-phy.c', () => {
    const ccrypt = decodeOsdp(
      bytes(`ff 53 e5 2a 00 09 03 12 01 76 101112131415161718191a1b1c1d1e1f
      202122232425262728292a2b2c2d2e2f 19`),
    );
    expect(ccrypt).toMatchObject({
      ok: true,
      packet: { reply: true, sequence: 1, code: 0x76, scb: { type: Scs.CCRYPT } },
    });
    if (ccrypt.ok)
      expect(hex(ccrypt.packet.data)).toBe('101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f');
    const rmacI = decodeOsdp(bytes('ff 53 e5 1b 00 0d 03 14 01 78 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf ca ba'));
    expect(rmacI).toMatchObject({
      ok: true,
      packet: { reply: true, code: 0x78, scb: { type: Scs.RMAC_I, data: Uint8Array.of(1) } },
    });
  });

  it('SCBK in the lanes file: 32 hex digits', () => {
    expect(hex(parseScbk(' 00112233445566778899AABBCCDDEEFF ')!)).toBe('00112233445566778899aabbccddeeff');
    expect(parseScbk('0011')).toBeNull();
    expect(parseScbk('zz112233445566778899aabbccddeeff')).toBeNull();
  });
});
