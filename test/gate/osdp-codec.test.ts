import { describe, expect, it } from 'vitest';
import {
  OsdpCommand,
  OsdpReply,
  createOsdpStreamReader,
  decodeOsdp,
  encodeOsdp,
  nextOsdpSequence,
  osdpChecksum,
  osdpCrc16,
  type OsdpPacket,
  type OsdpRejectReason,
} from '../../src/gate/relays/osdp/osdp-codec.js';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/ /g, ''), 'hex'));
const hex = (b: Uint8Array) =>
  Buffer.from(b)
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');

// Byte-exact vectors from libosdp, tests/unit-tests/test-cp-phy.c (goToMain/libosdp @ 04a0851576bd):
// the CP there is set up with PD address 101 (0x65), sequence 0, CRC mode, mark byte on.
const cmd = (code: number, data = ''): OsdpPacket => ({
  address: 0x65,
  reply: false,
  sequence: 0,
  useCrc: true,
  code,
  data: bytes(data),
});
const published: [string, OsdpPacket, string][] = [
  ['test_cp_build_packet_poll', cmd(OsdpCommand.POLL), 'ff 53 65 08 00 04 60 60 90'],
  ['test_cp_build_packet_id', cmd(OsdpCommand.ID, '00'), 'ff 53 65 09 00 04 61 00 d9 7a'],
  [
    'test_cp_build_packet_chlng (0x76, sent plain)',
    cmd(0x76, '0102030405060708'),
    'ff 53 65 10 00 04 76 01 02 03 04 05 06 07 08 0d 20',
  ],
];

// libosdp's test_phy_decode_packet_ack / _nak build these PD replies with checksum, sequence 1, address 0xe5.
const reply = (code: number, data = ''): OsdpPacket => ({
  address: 0x65,
  reply: true,
  sequence: 1,
  useCrc: false,
  code,
  data: bytes(data),
});
const replies: [string, OsdpPacket, string][] = [
  ['ACK with checksum (issue 4 vector)', reply(OsdpReply.ACK), '53 e5 07 00 01 40 80'],
  ['NAK reason 1 with checksum', reply(OsdpReply.NAK, '01'), '53 e5 08 00 01 41 01 7d'],
];

describe('OSDP check characters', () => {
  it('CRC-16 uses init 0x1D0F (CRC-16/AUG-CCITT: check value 0xE5CC)', () => {
    expect(osdpCrc16(new TextEncoder().encode('123456789'))).toBe(0xe5cc);
    expect(osdpCrc16(bytes('53 65 08 00 04 60'))).toBe(0x9060);
  });

  it("checksum is the two's complement of the byte sum", () => {
    expect(osdpChecksum(bytes('53 e5 07 00 01 40'))).toBe(0x80);
    expect(osdpChecksum(new Uint8Array())).toBe(0);
  });
});

describe('OSDP packets pinned by libosdp', () => {
  it.each(published)('%s', (_name, packet, wire) => {
    expect(hex(encodeOsdp(packet))).toBe(wire);
    expect(decodeOsdp(bytes(wire))).toEqual({ ok: true, packet });
  });

  it.each(replies)('%s', (_name, packet, wire) => {
    expect(hex(encodeOsdp(packet, { mark: false }))).toBe(wire);
    expect(decodeOsdp(bytes(wire))).toEqual({ ok: true, packet });
    expect(decodeOsdp(bytes(`ff ${wire}`))).toEqual({ ok: true, packet });
  });

  it('ignores any number of leading mark bytes (test_phy_decode_packet_ignore_leading_mark_bytes)', () => {
    expect(decodeOsdp(bytes('ff'.repeat(8) + '53 e5 07 00 01 40 80'))).toMatchObject({
      ok: true,
      packet: { code: OsdpReply.ACK },
    });
  });

  it('tells commands from replies by the address high bit', () => {
    const poll = decodeOsdp(bytes('ff 53 65 08 00 04 60 60 90'));
    const ack = decodeOsdp(bytes('53 e5 07 00 01 40 80'));
    expect(poll).toMatchObject({ ok: true, packet: { address: 0x65, reply: false } });
    expect(ack).toMatchObject({ ok: true, packet: { address: 0x65, reply: true } });
  });

  it('encodes to the broadcast address', () => {
    const wire = encodeOsdp({
      address: 0x7f,
      reply: false,
      sequence: 1,
      useCrc: false,
      code: OsdpCommand.POLL,
      data: new Uint8Array(),
    });
    expect(decodeOsdp(wire)).toMatchObject({ ok: true, packet: { address: 0x7f, reply: false, sequence: 1 } });
  });
});

describe('OSDP decoder rejects', () => {
  it.each([
    // From libosdp's test-cp-phy.c: invalid_checksum, invalid_crc, invalid_som, too_large, too_small.
    ['bad CRC on an ACK', 'ff 53 e5 08 00 04 40 00 00', 'bad_crc'],
    ['bad CRC on a POLL-coded packet', 'ff 53 e5 08 00 04 60 00 00', 'bad_crc'],
    ['wrong SOM', 'ff 44 e5 08 00 04 40 e7 a1', 'bad_som'],
    ['length field 0xffff', 'ff 53 e5 ff ff 04 40 e7 a1', 'oversize'],
    ['length field shorter than the packet', 'ff 53 e5 06 00 04 40 e7 a1', 'length_mismatch'],
    // Ours.
    ['bad checksum', '53 e5 07 00 01 40 81', 'bad_checksum'],
    ['packet longer than its length field', '53 e5 07 00 01 40 80 00', 'length_mismatch'],
    ['packet cut short', 'ff 53 65 08 00 04 60 60', 'length_mismatch'],
    ['only mark bytes', 'ff ff', 'truncated'],
    ['header cut short', '53 65 08', 'truncated'],
    ['length too small for a CRC packet', '53 65 07 00 04 60 00', 'length_mismatch'],
  ])('%s', (_name, wire, reason) => {
    expect(decodeOsdp(bytes(wire))).toEqual({ ok: false, reason });
  });

  it('a secure packet with no room for the MAC its security block announces', () => {
    // SCS_15 (control 0x0c) needs 4 MAC bytes before the CRC; this one has none.
    const body = bytes('53 65 0a 00 0c 02 15 60');
    const crc = osdpCrc16(body);
    const wire = Uint8Array.from([...body, crc & 0xff, crc >> 8]);
    expect(decodeOsdp(wire)).toEqual({ ok: false, reason: 'bad_security_block' });
  });

  it('every single-bit flip of the POLL vector', () => {
    const wire = bytes('53 65 08 00 04 60 60 90');
    for (let bit = 0; bit < wire.length * 8; bit++) {
      const copy = wire.slice();
      copy[bit >> 3]! ^= 1 << (bit & 7);
      expect(decodeOsdp(copy).ok, `bit ${bit}`).toBe(false);
    }
  });
});

describe('OSDP encoder', () => {
  it('refuses out-of-range fields', () => {
    const base = cmd(OsdpCommand.POLL);
    expect(() => encodeOsdp({ ...base, address: 0x80 })).toThrow(RangeError);
    expect(() => encodeOsdp({ ...base, sequence: 4 })).toThrow(RangeError);
  });

  it('cycles the sequence 1, 2, 3, 1 after the initial 0', () => {
    expect([0, 1, 2, 3].map(nextOsdpSequence)).toEqual([1, 2, 3, 1]);
  });
});

describe('OSDP stream reader', () => {
  const collect = () => {
    const packets: OsdpPacket[] = [];
    const rejects: OsdpRejectReason[] = [];
    const reader = createOsdpStreamReader(
      (p) => packets.push(p),
      (r) => rejects.push(r),
    );
    return { packets, rejects, reader };
  };
  const ack = '53 e5 07 00 01 40 80';
  const nak = '53 e5 08 00 01 41 01 7d';

  it('finds packets split anywhere, back to back, after marks and noise', () => {
    const { packets, rejects, reader } = collect();
    const wire = bytes(`00 12 ff ${ack} ff ff ${nak} ff 53 65 08 00 04 60 60 90`);
    for (const b of wire) reader.push(Uint8Array.of(b));
    expect(packets.map((p) => p.code)).toEqual([OsdpReply.ACK, OsdpReply.NAK, OsdpCommand.POLL]);
    expect(rejects).toEqual([]);
  });

  it('a corrupted packet is reported and the next good one still found', () => {
    const { packets, rejects, reader } = collect();
    reader.push(bytes(`53 e5 07 00 01 40 81 ${nak}`));
    expect(rejects).toEqual(['bad_checksum']);
    expect(packets.map((p) => p.code)).toEqual([OsdpReply.NAK]);
  });

  it('a false SOM whose length swallows a real packet only costs that SOM', () => {
    const { packets, rejects, reader } = collect();
    // `53 01 0c 00` claims 12 bytes: the ACK behind it is inside that span.
    reader.push(bytes(`53 01 0c 00 ${ack}`));
    expect(packets).toEqual([]);
    reader.push(bytes('00'));
    expect(rejects).toHaveLength(1);
    expect(packets.map((p) => p.code)).toEqual([OsdpReply.ACK]);
  });

  it('an impossible length is dropped at once instead of waited for', () => {
    const { packets, rejects, reader } = collect();
    reader.push(bytes(`53 e5 ff ff 04 ${ack}`));
    expect(rejects[0]).toBe('oversize');
    expect(packets.map((p) => p.code)).toEqual([OsdpReply.ACK]);
  });

  it('reset drops a partial packet', () => {
    const { packets, reader } = collect();
    reader.push(bytes('53 e5 07 00'));
    reader.reset();
    reader.push(bytes(`01 40 80 ${ack}`));
    expect(packets).toHaveLength(1);
  });

  it('skips a whole packet with a malformed security block', () => {
    const { packets, rejects, reader } = collect();
    const body = bytes('53 e5 0a 00 0d 02 16 40');
    const crc = osdpCrc16(body);
    reader.push(Uint8Array.from([...body, crc & 0xff, crc >> 8, ...bytes(ack)]));
    expect(rejects).toEqual(['bad_security_block']);
    expect(packets.map((p) => p.code)).toEqual([OsdpReply.ACK]);
  });
});
