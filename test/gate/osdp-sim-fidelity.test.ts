import { afterEach, describe, expect, it } from 'vitest';
import type { ByteLink } from '../../src/gate/serial/byte-link.js';
import { openOsdpSim, type OsdpSim } from '../support/osdp-reader-sim.js';
import { openPortLink } from '../support/port-link.js';
import { openPtyPair, type PtyPair } from '../support/pty.js';

// The simulated reader against the real one: packets written to libosdp's PD (goToMain/libosdp
// @ 45d03d81c75f, built here and run on a socat pty, 2026-11-23) and the bytes it answered,
// copied as vectors. The same packets to the simulator must get the same bytes, or nothing.

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/ /g, ''), 'hex'));
const hex = (b: Uint8Array) =>
  Buffer.from(b)
    .toString('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1 ');
// The PDID the reference PD was set up with: vendor A1B2C3, model 1, version 1, serial 0x01020304, firmware 3.2.0.
const ID = { vendor: 0xa1b2c3, model: 1, version: 1, serial: 0x01020304, firmware: '3.2.0' };

let pty: PtyPair | null = null;
let sim: OsdpSim | null = null;
let link: ByteLink | null = null;
afterEach(async () => {
  await link?.close();
  await sim?.close();
  await pty?.close();
  pty = sim = link = null;
});

async function exchange(l: ByteLink, sent: string, waitMs = 300): Promise<string> {
  const got: number[] = [];
  const off = l.onData((chunk) => got.push(...chunk));
  await l.write(bytes(sent));
  await new Promise((r) => setTimeout(r, waitMs));
  off();
  return hex(Uint8Array.from(got));
}

describe("the simulated OSDP reader answers like libosdp's PD", () => {
  it('ID, a broken CRC, POLL, a card read, OUT, and the NAKs with its own sequence after a power cut', async () => {
    pty = await openPtyPair('fidelity');
    sim = await openOsdpSim(pty.device, [{ address: 1, id: ID }]);
    link = await openPortLink(pty.box);
    const r = sim.reader(1);
    expect(await exchange(link, 'FF 53 01 09 00 04 61 00 60 23')).toBe(
      'FF 53 81 14 00 04 45 C3 B2 A1 01 01 04 03 02 01 03 02 00 AC E3',
    );
    // A broken CRC gets nothing at all; the same packet with its CRC right is answered.
    expect(await exchange(link, 'FF 53 01 09 00 05 61 00 51 14')).toBe('');
    expect(await exchange(link, 'FF 53 01 09 00 05 61 00 50 14')).toBe(
      'FF 53 81 14 00 05 45 C3 B2 A1 01 01 04 03 02 01 03 02 00 CD 98',
    );
    expect(await exchange(link, 'FF 53 01 08 00 06 60 D8 66')).toBe('FF 53 81 08 00 06 40 6A 60');
    r.scan('1234');
    expect(await exchange(link, 'FF 53 01 08 00 07 60 E9 55')).toBe(
      'FF 53 81 10 00 07 50 00 00 20 00 31 32 33 34 2E 3F',
    );
    expect(await exchange(link, 'FF 53 01 0C 00 05 68 00 02 00 00 BE 1F')).toBe('FF 53 81 08 00 05 40 39 35');
    expect(r.output(0).on).toBe(true);
    // A 70-character code leaves the reader cut to 64 bytes (512 bits).
    r.scan('X'.repeat(70));
    expect(await exchange(link, 'FF 53 01 08 00 06 60 D8 66')).toBe(
      `FF 53 81 4C 00 06 50 00 00 00 02 ${Array(64).fill('58').join(' ')} 8D 35`,
    );
    r.powerCut();
    // After the cut: NAK 4 with the reader's own sequence, 0 and then 1, whatever the command's.
    expect(await exchange(link, 'FF 53 01 09 00 06 61 00 00 4D')).toBe('FF 53 81 09 00 04 41 04 22 B1');
    expect(await exchange(link, 'FF 53 01 09 00 06 61 00 00 4D')).toBe('FF 53 81 09 00 05 41 04 12 86');
  });
});
