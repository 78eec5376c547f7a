import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LaneConfigError, loadLaneConfig, parseLaneConfig } from '../../src/gate/lanes/lanes-file.js';
import { tempDir } from '../support/box.js';

const BY_ID = '/dev/serial/by-id/usb-Honeywell_3320g';
const YAML_OK = `
lanes:
  - name: entrada-1
    direction: entrada
    operador: Catraca Norte
    scanners:
      - path: ${BY_ID}-1
        suffix: crlf
        stripAimId: true
    relay:
      driver: bridge
      path: /dev/serial/by-path/platform-xhci-hcd.0-usb-0:1:1.0
      pulseMs: 700
    passage:
      timeoutMs: 8000
  - name: saida-1
    direction: saida
    operador: Catraca Sul
    scanners:
      - path: ${BY_ID}-2
        suffix: none
        interByteTimeoutMs: 40
    relay: { driver: lcus, path: /dev/serial/by-id/usb-1a86_USB_Serial-if00, channel: 2 }
    failMode: livre
`;

const lane = (over: Record<string, unknown> = {}) => ({
  name: 'l1',
  direction: 'entrada',
  operador: 'op',
  scanners: [{ path: `${BY_ID}-9` }],
  relay: { driver: 'bridge', path: '/dev/serial/by-id/bridge-9' },
  ...over,
});
const parseJson = (lanes: unknown[]) => parseLaneConfig(JSON.stringify({ lanes }), 'lanes.json');
const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(LaneConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a LaneConfigError');
};

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('lane config', () => {
  it('loads a YAML file with defaults filled in and no warnings for stable paths', () => {
    dir = tempDir();
    const file = path.join(dir, 'lanes.yaml');
    fs.writeFileSync(file, YAML_OK);
    const { config, warnings } = loadLaneConfig(file);
    expect(config).toMatchObject({ reentrada: 'nao', saidaSemEntrada: 'liberar', areas: {} });
    expect(config.lanes[0]).toEqual({
      name: 'entrada-1',
      direction: 'entrada',
      area: 'parque',
      operador: 'Catraca Norte',
      scanners: [
        { path: `${BY_ID}-1`, baud: 9600, suffix: 'crlf', interByteTimeoutMs: 50, stripAimId: true, maxLength: 256 },
      ],
      relay: {
        driver: 'bridge',
        path: '/dev/serial/by-path/platform-xhci-hcd.0-usb-0:1:1.0',
        baud: 115200,
        pulseMs: 700,
        heartbeatTimeoutMs: 3000,
      },
      passage: { timeoutMs: 8000 },
      debounceMs: 2000,
      failMode: 'travada',
    });
    expect(config.lanes[1]).toMatchObject({
      failMode: 'livre',
      relay: { driver: 'lcus', channel: 2, pulseMs: 500, baud: 9600 },
    });
    expect(config.lanes[1]!.passage).toBeUndefined();
    // Only the LCUS warning: it cannot fail safe.
    expect(warnings).toEqual([expect.stringContaining('lanes[1].relay: relé LCUS')]);
  });

  it('loads JSON by extension, and by content when the extension says nothing', () => {
    dir = tempDir();
    const json = JSON.stringify({
      lanes: [lane({ relay: { driver: 'osdp', path: '/dev/serial/by-id/rs485', address: 101 } })],
    });
    fs.writeFileSync(path.join(dir, 'lanes.json'), json);
    fs.writeFileSync(path.join(dir, 'lanes.conf'), json);
    fs.writeFileSync(path.join(dir, 'lanes'), YAML_OK);
    expect(loadLaneConfig(path.join(dir, 'lanes.json')).config.lanes[0]!.relay).toEqual({
      driver: 'osdp',
      path: '/dev/serial/by-id/rs485',
      baud: 9600,
      pulseMs: 500,
      address: 101,
      output: 0,
      installMode: false,
    });
    expect(loadLaneConfig(path.join(dir, 'lanes.conf')).config.lanes).toHaveLength(1);
    expect(loadLaneConfig(path.join(dir, 'lanes')).config.lanes).toHaveLength(2);
  });

  it('names the file for unreadable and unparsable files', () => {
    expect(messageOf(() => loadLaneConfig('/nonexistent/lanes.yaml'))).toMatch(
      /^Configuração das pistas \(\/nonexistent\/lanes.yaml\): não foi possível ler/,
    );
    expect(messageOf(() => parseLaneConfig('{"lanes": [', 'x.json'))).toMatch(/\(x\.json\):\n {2}não é um JSON válido/);
    expect(messageOf(() => parseLaneConfig('lanes:\n  - name: a\n   bad: [', 'x.yaml'))).toMatch(
      /\(x\.yaml\):\n {2}não é um YAML válido/,
    );
    expect(messageOf(() => parseLaneConfig('lanes:\n  - name: a\n    name: b\n', 'x.yml'))).toMatch(
      /não é um YAML válido/,
    );
  });

  it('names the path of every bad field, in Portuguese', () => {
    const msg = messageOf(() =>
      parseJson([
        lane({
          name: '',
          direction: 'norte',
          operador: '   ',
          scanners: [
            {
              path: 'ttyUSB0',
              baud: 1234,
              suffix: 'tab',
              interByteTimeoutMs: -1,
              stripAimId: 'sim',
              maxLength: 2,
              extra: 1,
            },
          ],
          relay: { driver: 'bridge', path: '/dev/serial/by-id/b', pulseMs: 10, heartbeatTimeoutMs: 99 },
          passage: { timeoutMs: 10 },
          debounceMs: 1.5,
          failMode: 'aberta',
        }),
        lane({ name: 'l2', scanners: [], relay: { driver: 'gpio', path: '/dev/x' } }),
        lane({
          name: 'l3',
          scanners: [{ path: `${BY_ID}-3`, suffix: 'none', interByteTimeoutMs: 0 }],
          relay: { driver: 'lcus', path: '/dev/serial/by-id/l', channel: 9 },
        }),
        lane({
          name: 'l4',
          scanners: [{ path: `${BY_ID}-4` }],
          relay: { driver: 'osdp', path: '/dev/serial/by-id/o', address: 127 },
        }),
      ]),
    );
    expect(msg.split('\n')[0]).toBe('Configuração das pistas inválida (lanes.json):');
    for (const p of [
      'lanes[0].name: informe o nome',
      'lanes[0].direction: use entrada ou saida',
      'lanes[0].operador: informe o operador',
      'lanes[0].scanners[0].path: use um caminho de dispositivo absoluto',
      'lanes[0].scanners[0].baud: velocidade (baud) não suportada',
      'lanes[0].scanners[0].suffix:',
      'lanes[0].scanners[0].interByteTimeoutMs:',
      'lanes[0].scanners[0].stripAimId:',
      'lanes[0].scanners[0].maxLength:',
      'lanes[0].scanners[0]: ',
      'lanes[0].relay.pulseMs:',
      'lanes[0].relay.heartbeatTimeoutMs:',
      'lanes[0].passage.timeoutMs:',
      'lanes[0].debounceMs:',
      'lanes[0].failMode: use travada ou livre',
      'lanes[1].relay.driver: driver de relé desconhecido',
      'lanes[2].scanners[0].interByteTimeoutMs: com suffix none',
      'lanes[2].relay.channel:',
      'lanes[3].relay.address:',
    ])
      expect(msg).toContain(`  ${p}`);
    expect(msg).toMatch(/lanes\[0\]\.scanners\[0\]: .*"extra"/);
    expect(msg).not.toMatch(/Invalid|expected/); // zod's English defaults never reach the installer
  });

  it('rejects an empty file, no lanes and unknown top-level fields', () => {
    expect(messageOf(() => parseLaneConfig('', 'a.yaml'))).toContain('  (raiz): ');
    expect(messageOf(() => parseJson([]))).toContain('  lanes: configure pelo menos uma pista');
    expect(messageOf(() => parseLaneConfig('{"lanes":[],"lane":1}', 'a.json'))).toMatch(/\(raiz\): .*"lane"/);
  });

  it('rejects duplicate lane names and a serial port opened twice', () => {
    const msg = messageOf(() =>
      parseJson([
        lane({
          name: 'a',
          scanners: [{ path: '/dev/serial/by-id/s1' }],
          relay: { driver: 'bridge', path: '/dev/serial/by-id/r1' },
        }),
        lane({
          name: 'a',
          scanners: [{ path: '/dev/serial/by-id/s1' }],
          relay: { driver: 'bridge', path: '/dev/serial/by-id/r2' },
        }),
        lane({
          name: 'c',
          scanners: [{ path: '/dev/serial/by-id/r1' }],
          relay: { driver: 'bridge', path: '/dev/serial/by-id/r3' },
        }),
      ]),
    );
    expect(msg).toContain('  lanes[1].name: pista "a" repetida (já usada em lanes[0])');
    expect(msg).toContain(
      '  lanes[1].scanners[0].path: porta /dev/serial/by-id/s1 já usada em lanes[0].scanners[0].path (pista "a")',
    );
    expect(msg).toContain('  lanes[2].scanners[0].path: porta /dev/serial/by-id/r1 já usada em lanes[0].relay.path');
  });

  it('names every problem of the file in one go: a value out of range, a repeated name, a port used twice', () => {
    dir = tempDir('gate-lanes-all-');
    const file = path.join(dir, 'lanes.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        lanes: [
          lane({ name: 'a', relay: { driver: 'lcus', path: '/dev/serial/by-id/r1', channel: 9 } }),
          lane({
            name: 'a',
            scanners: [{ path: '/dev/serial/by-id/r1' }],
            relay: { driver: 'bridge', path: '/dev/serial/by-id/r2' },
          }),
        ],
      }),
    );
    const msg = messageOf(() => loadLaneConfig(file));
    expect(msg).toMatch(/\n {2}lanes\[0\]\.relay\.channel: /);
    expect(msg).toContain('\n  lanes[1].name: pista "a" repetida (já usada em lanes[0])');
    expect(msg).toContain(
      '\n  lanes[1].scanners[0].path: porta /dev/serial/by-id/r1 já usada em lanes[0].relay.path (pista "a")',
    );
  });

  it('lets OSDP relays share an RS-485 bus only at distinct addresses', () => {
    const osdp = (name: string, address: number) =>
      lane({
        name,
        scanners: [{ path: `${BY_ID}-${name}` }],
        relay: { driver: 'osdp', path: '/dev/serial/by-id/rs485', address },
      });
    expect(parseJson([osdp('a', 1), osdp('b', 2)]).config.lanes).toHaveLength(2);
    expect(messageOf(() => parseJson([osdp('a', 1), osdp('b', 1)]))).toContain(
      'lanes[1].relay.path: porta /dev/serial/by-id/rs485 já usada em lanes[0].relay.path (pista "a"): mesmo endereço OSDP 1',
    );
    const slow = {
      ...osdp('b', 2),
      relay: { driver: 'osdp', path: '/dev/serial/by-id/rs485', address: 2, baud: 19200 },
    };
    expect(messageOf(() => parseJson([osdp('a', 1), slow]))).toContain(
      'lanes[1].relay.path: barramento OSDP /dev/serial/by-id/rs485 com velocidade 19200 aqui e 9600 em lanes[0].relay.path',
    );
  });

  it('needs a scanner on every lane except an OSDP one, whose reader can be its scanner', () => {
    expect(messageOf(() => parseJson([lane({ scanners: [] })]))).toContain(
      '  lanes[0].scanners: a pista precisa de pelo menos um leitor',
    );
    expect(messageOf(() => parseJson([lane({ scanners: undefined })]))).toContain(
      '  lanes[0].scanners: a pista precisa de pelo menos um leitor',
    );
    const reader = parseJson([
      lane({ scanners: [], relay: { driver: 'osdp', path: '/dev/serial/by-id/rs485', address: 1 } }),
    ]);
    expect(reader.config.lanes[0]!.scanners).toEqual([]);
  });

  it('the full example in docs/lanes.md is valid', () => {
    const md = fs.readFileSync(new URL('../../docs/lanes.md', import.meta.url), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(md)![1]!;
    const { config, warnings } = parseLaneConfig(example, 'docs/lanes.md');
    expect(config.lanes.map((l) => l.relay.driver)).toEqual(['bridge', 'lcus', 'osdp']);
    expect(warnings).toEqual([expect.stringContaining('relé LCUS')]);
  });

  it('warns about unstable serial paths', () => {
    const { warnings } = parseJson([
      lane({ scanners: [{ path: '/dev/ttyACM0' }], relay: { driver: 'bridge', path: '/dev/ttyUSB0' } }),
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^lanes\.json: lanes\[0\]\.scanners\[0\]\.path = \/dev\/ttyACM0 não é um caminho estável/),
      expect.stringMatching(/^lanes\.json: lanes\[0\]\.relay\.path = \/dev\/ttyUSB0 não é um caminho estável/),
    ]);
  });

  describe('OSDP secure channel keys', () => {
    const KEY = '00112233445566778899aabbccddeeff';
    const osdpLane = (relay: Record<string, unknown>) =>
      lane({ scanners: [], relay: { driver: 'osdp', path: '/dev/serial/by-id/rs485', address: 1, ...relay } });

    it('a key inline, 32 hex digits; a bad one is refused without being repeated', () => {
      expect(parseJson([osdpLane({ scbk: KEY.toUpperCase() })]).config.lanes[0]!.relay).toMatchObject({
        scbk: KEY.toUpperCase(),
        installMode: false,
      });
      const msg = messageOf(() => parseJson([osdpLane({ scbk: 'secret-0011223344' })]));
      expect(msg).toContain('lanes[0].relay.scbk: a chave (SCBK) tem 32 dígitos hexadecimais');
      expect(msg).not.toContain('secret');
    });

    it('a key file next to the lanes file, read at load; its content never appears in a message', () => {
      dir = tempDir('gate-lanes-');
      fs.writeFileSync(path.join(dir, 'l1.key'), `${KEY}\n`, { mode: 0o600 });
      fs.writeFileSync(path.join(dir, 'open.key'), KEY, { mode: 0o644 });
      fs.chmodSync(path.join(dir, 'open.key'), 0o644);
      fs.writeFileSync(path.join(dir, 'bad.key'), 'not-a-key-but-secret', { mode: 0o600 });
      const file = path.join(dir, 'lanes.json');
      const load = (relay: Record<string, unknown>) => {
        fs.writeFileSync(file, JSON.stringify({ lanes: [osdpLane(relay)] }));
        return loadLaneConfig(file);
      };
      const ok = load({ scbkFile: 'l1.key' });
      expect(ok.config.lanes[0]!.relay).toMatchObject({ scbk: KEY });
      expect(ok.warnings.filter((w) => w.includes('key'))).toEqual([]);
      expect(load({ scbkFile: 'open.key' }).warnings).toEqual([
        expect.stringMatching(/scbkFile = .*open\.key pode ser lido por outros usuários: use chmod 600/),
      ]);
      const bad = messageOf(() => load({ scbkFile: 'bad.key' }));
      expect(bad).toMatch(/lanes\[0\]\.relay\.scbkFile: .*bad\.key não contém uma chave de 32 dígitos hexadecimais/);
      expect(bad).not.toContain('secret');
      expect(messageOf(() => load({ scbkFile: 'missing.key' }))).toMatch(
        /lanes\[0\]\.relay\.scbkFile: não foi possível ler .*missing\.key: ENOENT/,
      );
    });

    it('install mode needs the key to give the reader, and is warned about; a key inline and a key file together are refused', () => {
      expect(messageOf(() => parseJson([osdpLane({ installMode: true })]))).toContain(
        'lanes[0].relay.installMode: o modo de instalação precisa da chave',
      );
      expect(parseJson([osdpLane({ scbk: KEY, installMode: true })]).warnings).toEqual([
        expect.stringContaining(
          'lanes[0].relay.installMode: o leitor OSDP pode receber a chave pelo canal com a chave padrão',
        ),
      ]);
      expect(messageOf(() => parseJson([osdpLane({ scbk: KEY, scbkFile: 'x.key' })]))).toContain(
        'lanes[0].relay.scbkFile: use scbk ou scbkFile, não os dois',
      );
    });
  });
});
