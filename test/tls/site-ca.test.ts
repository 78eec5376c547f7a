import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp.js';
import { gate } from '../cli/run.js';

// `gate tls ca` and `gate tls issue` as an IT lead runs them (docs/handheld.md), checked by openssl itself.

const openssl = (...args: string[]) => execFileSync('openssl', args, { encoding: 'utf8', stdio: 'pipe' });
const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('a site CA made by gate tls ca, and the box certificate it signs', () => {
  let data: string;
  let dir: string;
  beforeAll(async () => {
    data = path.join(tempDir(), 'data'); // made by gate tls ca
    dir = path.join(data, 'tls');
    const ca = await gate(data, [
      'tls',
      'ca',
      '--rede',
      '192.168.10.0/24',
      '--rede',
      '10.20.0.0/16',
      '--nome',
      'Parque Água/Azul',
    ]);
    expect(ca.code, ca.stderr).toBe(0);
    expect(ca.stderr).toMatch(/impressão digital SHA-256: ([0-9A-F]{2}:){31}[0-9A-F]{2}\n/);
    const issued = await gate(data, [
      'tls',
      'issue',
      '--ip',
      '192.168.10.5',
      '--dns',
      'caixa.lan',
      '--dns',
      'Portaria.caixa.lan',
    ]);
    expect(issued.code, issued.stderr).toBe(0);
    expect(issued.stdout.trim()).toBe(path.join(dir, 'box.pem'));
  });

  it('lands next to the database by default, keys readable by their owner only', () => {
    expect(fs.readdirSync(dir).sort()).toEqual(['box.key', 'box.pem', 'ca.key', 'ca.pem']);
    expect(mode(path.join(dir, 'ca.key'))).toBe(0o600);
    expect(mode(path.join(dir, 'box.key'))).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(mode(data) & 0o077).not.toBe(0);
  });

  it('is a CA constrained to the given subnets and .lan names, critically', () => {
    const text = openssl(
      'x509',
      '-in',
      path.join(dir, 'ca.pem'),
      '-noout',
      '-subject',
      '-ext',
      'nameConstraints,basicConstraints',
    );
    expect(text).toMatch(/X509v3 Name Constraints: critical/);
    const permitted = /Permitted:\n([\s\S]*?)(\n\S|$)/
      .exec(text)![1]!
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    expect(permitted).toEqual(['IP:192.168.10.0/255.255.255.0', 'IP:10.20.0.0/255.255.0.0', 'DNS:lan']);
    expect(text).not.toMatch(/Excluded/);
    expect(text).toMatch(/CA:TRUE, pathlen:0/);
    // The park's name is one field: its slash did not start another.
    const subject = new crypto.X509Certificate(fs.readFileSync(path.join(dir, 'ca.pem'))).subject;
    expect(subject.split('\n')).toEqual(['O=Parque Água/Azul', 'CN=Parque Água/Azul - CA da rede local']);
  });

  it('signs a serverAuth certificate for the names and IP given, for 397 days, that openssl verifies', () => {
    const box = path.join(dir, 'box.pem');
    expect(openssl('verify', '-CAfile', path.join(dir, 'ca.pem'), box).trim()).toBe(`${box}: OK`);
    const leaf = new crypto.X509Certificate(fs.readFileSync(box));
    expect(leaf.subjectAltName).toBe('DNS:caixa.lan, DNS:portaria.caixa.lan, IP Address:192.168.10.5');
    const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
    expect(Math.round(days)).toBe(397);
    expect(openssl('x509', '-in', box, '-noout', '-ext', 'extendedKeyUsage')).toMatch(/TLS Web Server Authentication/);
    // box.pem carries the chain: the leaf, then the CA.
    expect(fs.readFileSync(box, 'utf8').match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(openssl('pkey', '-in', path.join(dir, 'box.key'), '-pubout')).toBe(
      leaf.publicKey.export({ type: 'spki', format: 'pem' }),
    );
  });

  it('refuses addresses and names outside the CA, in Portuguese, and leaves the certificate as it was', async () => {
    const before = fs.readFileSync(path.join(dir, 'box.pem'));
    const refused = await gate(data, ['tls', 'issue', '--ip', '192.168.11.5', '--dns', 'caixa.example.com']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('o IP 192.168.11.5 está fora das redes da CA (192.168.10.0/24, 10.20.0.0/16)');
    expect(refused.stderr).toContain('o nome "caixa.example.com" não é aceito pela CA');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(fs.readFileSync(path.join(dir, 'box.pem'))).toEqual(before);
    expect(fs.readdirSync(dir).sort()).toEqual(['box.key', 'box.pem', 'ca.key', 'ca.pem']);
  });

  it('would be refused by openssl too: the constraints are in the CA, not only in gate', () => {
    // A certificate for a name outside .lan, signed with the CA key behind gate's back.
    const rogue = tempDir();
    const key = path.join(rogue, 'k.pem');
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key);
    fs.writeFileSync(path.join(rogue, 'ext'), 'subjectAltName=DNS:banco.example.com,IP:8.8.8.8\n');
    openssl('req', '-new', '-key', key, '-subj', '/CN=x', '-out', path.join(rogue, 'csr'));
    const cert = path.join(rogue, 'c.pem');
    openssl(
      'x509',
      '-req',
      '-in',
      path.join(rogue, 'csr'),
      '-CA',
      path.join(dir, 'ca.pem'),
      '-CAkey',
      path.join(dir, 'ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      path.join(rogue, 'ext'),
      '-out',
      cert,
    );
    let failure = '';
    try {
      openssl('verify', '-CAfile', path.join(dir, 'ca.pem'), cert);
    } catch (error) {
      failure = String((error as { stdout?: string }).stdout) + String((error as { stderr?: string }).stderr);
    }
    expect(failure).toMatch(/permitted subtree violation/);
  });

  it('refuses to replace the CA without --forcar, and replaces it with', async () => {
    const before = fs.readFileSync(path.join(dir, 'ca.pem'));
    const again = await gate(data, ['tls', 'ca', '--rede', '192.168.10.0/24']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/já existe uma CA em .*use --forcar/);
    expect(fs.readFileSync(path.join(dir, 'ca.pem'))).toEqual(before);
    const forced = await gate(data, ['tls', 'ca', '--rede', '192.168.10.0/24', '--forcar']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'ca.pem'))).not.toEqual(before);
    expect(mode(path.join(dir, 'ca.key'))).toBe(0o600);
  });
});

describe('bad input', () => {
  it('a CA without --rede, or with a malformed one, is refused with a usage message', async () => {
    const data = tempDir();
    const none = await gate(data, ['tls', 'ca']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('informe ao menos uma rede com --rede');
    const bad = await gate(data, ['tls', 'ca', '--rede', '192.168.10.0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('rede inválida: "192.168.10.0" (use endereço/prefixo, ex.: 192.168.10.0/24)');
    const long = await gate(data, ['tls', 'ca', '--rede', '192.168.10.0/24', '--nome', 'P'.repeat(41)]);
    expect(long.code).toBe(1);
    expect(long.stderr).toContain('--nome: até 40 caracteres');
    expect(fs.existsSync(path.join(data, 'tls', 'ca.key'))).toBe(false);
  });

  it('issuing without a CA, or without any name, says what to do', async () => {
    const data = tempDir();
    const noCa = await gate(data, ['tls', 'issue', '--ip', '192.168.10.5']);
    expect(noCa.code).toBe(1);
    expect(noCa.stderr).toMatch(/não há CA em .*: crie com gate tls ca --rede/);
    const noName = await gate(data, ['tls', 'issue']);
    expect(noName.stderr).toContain('informe ao menos um --ip ou --dns');
    const unknown = await gate(data, ['tls', 'renovar']);
    expect(unknown.code).toBe(2);
  });

  it('--dir and GATE_TLS_DIR choose the folder', async () => {
    const data = tempDir();
    const elsewhere = path.join(tempDir(), 'certs');
    const made = await gate(data, ['tls', 'ca', '--rede', '192.168.10.0/24'], { env: { GATE_TLS_DIR: elsewhere } });
    expect(made.code, made.stderr).toBe(0);
    expect(fs.existsSync(path.join(elsewhere, 'ca.pem'))).toBe(true);
    const other = path.join(tempDir(), 'outra');
    expect((await gate(data, ['tls', 'ca', '--rede', '10.0.0.0/8', '--dir', other])).code).toBe(0);
    expect(fs.existsSync(path.join(other, 'ca.key'))).toBe(true);
  });
});
