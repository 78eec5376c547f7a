import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OsdpCommand } from '../../src/gate/relays/osdp/osdp-codec.js';
import { tempDir } from '../support/box.js';
import { openOsdpSim, type OsdpSim } from '../support/osdp-reader-sim.js';
import { openPtyPair, type PtyPair } from '../support/pty.js';
import { gate } from './run.js';

// `gate osdp set-key` against a simulated reader (libosdp's PD link layer) on a real pty.

const NEW_KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const OLD_KEY = '00112233445566778899aabbccddeeff';
const hex = (b: Uint8Array | null) => (b ? Buffer.from(b).toString('hex') : null);

let pty: PtyPair | null = null;
let sim: OsdpSim | null = null;
let dir: string | null = null;
afterEach(async () => {
  await sim?.close();
  await pty?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  pty = sim = dir = null;
});

async function setup(reader: Parameters<typeof openOsdpSim>[1][number]) {
  dir = tempDir('gate-osdp-cli-');
  for (const [name, key] of [
    ['new.key', NEW_KEY],
    ['old.key', OLD_KEY],
    ['wrong.key', 'ab'.repeat(16)],
  ] as const) {
    fs.writeFileSync(path.join(dir, name), `${key}\n`, { mode: 0o600 });
  }
  pty = await openPtyPair('osdp-cli');
  sim = await openOsdpSim(pty.device, [reader]);
  return { r: sim.reader(reader.address), file: (name: string) => path.join(dir!, name) };
}

describe('gate osdp set-key', () => {
  it('gives a reader in install mode its key over SCBK-D and checks a session on it; the key is never printed', async () => {
    const { r, file } = await setup({ address: 3, installMode: true });
    const out = await gate(dir!, [
      'osdp',
      'set-key',
      '--port',
      pty!.box,
      '--address',
      '3',
      '--key-file',
      file('new.key'),
    ]);
    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(/chave gravada no leitor OSDP 3 em .* e verificada/);
    expect(out.code).toBe(0);
    expect(hex(r.security.scbk)).toBe(NEW_KEY);
    expect(r.security.installMode).toBe(false);
    expect(out.stdout + out.stderr).not.toContain(NEW_KEY);
    // Run again: the reader already has it, nothing is written.
    const again = await gate(dir!, [
      'osdp',
      'set-key',
      '--port',
      pty!.box,
      '--address',
      '3',
      '--key-file',
      file('new.key'),
    ]);
    expect(again.stdout).toMatch(/já usa esta chave/);
    expect(r.received.filter((c) => c.code === OsdpCommand.KEYSET)).toHaveLength(1);
  });

  it('re-keys from the current key; with the wrong current key it fails and says why', async () => {
    const { r, file } = await setup({ address: 1, scbk: Buffer.from(OLD_KEY, 'hex'), enforceSecure: true });
    const wrong = await gate(dir!, [
      'osdp',
      'set-key',
      '--port',
      pty!.box,
      '--address',
      '1',
      '--key-file',
      file('new.key'),
      '--current-key-file',
      file('wrong.key'),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/chave do canal seguro \(SCBK\) não confere/);
    expect(hex(r.security.scbk)).toBe(OLD_KEY);
    const ok = await gate(dir!, [
      'osdp',
      'set-key',
      '--port',
      pty!.box,
      '--address',
      '1',
      '--key-file',
      file('new.key'),
      '--current-key-file',
      file('old.key'),
    ]);
    expect(ok.code).toBe(0);
    expect(hex(r.security.scbk)).toBe(NEW_KEY);
  });

  it('usage errors name the option, never a key', async () => {
    const { file } = await setup({ address: 1 });
    fs.writeFileSync(file('bad.key'), 'secret-not-hex');
    const missing = await gate(dir!, ['osdp', 'set-key', '--port', pty!.box, '--key-file', file('new.key')]);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('informe --address') });
    const bad = await gate(dir!, [
      'osdp',
      'set-key',
      '--port',
      pty!.box,
      '--address',
      '1',
      '--key-file',
      file('bad.key'),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--key-file: .*bad\.key não contém uma chave de 32 dígitos hexadecimais/);
    expect(bad.stderr).not.toContain('secret');
    const silent = await gate(dir!, [
      'osdp',
      'set-key',
      '--port',
      pty!.box,
      '--address',
      '9',
      '--key-file',
      file('new.key'),
      '--timeout',
      '1',
    ]);
    expect(silent.code).toBe(1);
    expect(silent.stderr).toMatch(/Leitor OSDP no endereço 9 não responde/);
  });
});
