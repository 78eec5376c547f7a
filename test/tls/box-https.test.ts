import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoxFromConfig } from '../../src/box-config.js';
import { loadConfig } from '../../src/config.js';
import { issueCert, makeCa, parseSubnet } from '../../src/tls/site-ca.js';
import { gate } from '../cli/run.js';
import { tempDir } from '../support/temp.js';
import { caOf, plainGet, servedCert, serialOf, siteCaDir, siteTlsBox } from './support.js';

// The real box serving HTTPS from a site CA dir (GATE_TLS_DIR): trusted by a client that knows only the CA, renewed
// and reloaded while it runs, the CA handed out on plain HTTP.

let closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.reverse()) await close();
  closing = [];
});

const until = async (what: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('HTTPS with the site CA', () => {
  it('is trusted for box.lan and for the IP by a client that trusts only the site CA', async () => {
    const dir = await siteCaDir();
    const box = await siteTlsBox(dir);
    closing.push(box.close);
    const byName = await servedCert(box.port, caOf(dir), 'box.lan');
    expect(byName.serialNumber.toUpperCase()).toBe(serialOf(path.join(dir, 'box.pem')));
    await expect(servedCert(box.port, caOf(dir))).resolves.toMatchObject({
      subjectaltname: expect.stringContaining('IP Address:127.0.0.1'),
    });
    // Not for a name the certificate does not carry, and not for a client without the CA.
    await expect(servedCert(box.port, caOf(dir), 'outra.lan')).rejects.toThrow(/does not match certificate's altnames/);
    const stranger = await siteCaDir();
    await expect(servedCert(box.port, caOf(stranger), 'box.lan')).rejects.toThrow(/unable to verify|self.signed/i);
  });

  it('status carries the CA fingerprint and the certificate end', async () => {
    const dir = await siteCaDir();
    const box = await siteTlsBox(dir);
    closing.push(box.close);
    const ca = new crypto.X509Certificate(caOf(dir));
    const leaf = new crypto.X509Certificate(fs.readFileSync(path.join(dir, 'box.pem')));
    expect(box.status.tls()).toEqual({
      caFingerprint: ca.fingerprint256,
      certExpiresAt: new Date(leaf.validTo).toISOString(),
      certSerial: leaf.serialNumber,
      ips: ['127.0.0.1', '192.168.10.5'],
      names: ['box.lan'],
    });
    const ready = await box.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.json().data.partes.tls).toEqual({
      ok: true,
      ca_sha256: ca.fingerprint256,
      certificado_expira_em: new Date(leaf.validTo).toISOString(),
    });
  });

  it('loads a certificate issued while it runs (gate tls issue), without a restart, and logs one line', async () => {
    const dir = await siteCaDir();
    const box = await siteTlsBox(dir, { checkMs: 100 });
    closing.push(box.close);
    const first = (await servedCert(box.port, caOf(dir), 'box.lan')).serialNumber;
    const issued = await gate(path.dirname(dir), [
      'tls',
      'issue',
      '--dir',
      dir,
      '--ip',
      '127.0.0.1',
      '--dns',
      'box.lan',
      '--dns',
      'caixa2.lan',
    ]);
    expect(issued.code, issued.stderr).toBe(0);
    const second = serialOf(path.join(dir, 'box.pem'));
    expect(second).not.toBe(first.toUpperCase());
    await until(
      async () =>
        (await servedCert(box.port, caOf(dir), 'caixa2.lan').catch(() => null))?.serialNumber.toUpperCase() === second,
    );
    const reloads = box.log.lines.filter((l) => l.msg === 'tls: certificado recarregado');
    expect(reloads).toHaveLength(1);
    expect(reloads[0]!.obj).toMatchObject({ serial: second });
    expect(box.log.text()).not.toMatch(/PRIVATE KEY|BEGIN/);
  });

  it('renews a certificate near its end: same names, new key, served without a restart', async () => {
    const dir = await siteCaDir();
    const box = await siteTlsBox(dir, { checkMs: 100 });
    closing.push(box.close);
    const original = serialOf(path.join(dir, 'box.pem'));
    // A certificate with 10 days left, as if the box had run for a year.
    const short = await issueCert({ dir, ips: ['127.0.0.1'], names: ['box.lan'], days: 10 });
    await until(async () => {
      const served = await servedCert(box.port, caOf(dir), 'box.lan');
      return (
        ![short.serialNumber, original].includes(served.serialNumber.toUpperCase()) &&
        Date.parse(served.valid_to) - Date.now() > 300 * 86_400_000
      );
    });
    const renewed = new crypto.X509Certificate(fs.readFileSync(path.join(dir, 'box.pem')));
    expect(renewed.subjectAltName).toBe('DNS:box.lan, IP Address:127.0.0.1');
    expect(renewed.publicKey.export({ format: 'der', type: 'spki' })).not.toEqual(
      short.publicKey.export({ format: 'der', type: 'spki' }),
    );
    expect(box.status.tls()!.certSerial).toBe(renewed.serialNumber);
    expect(fs.statSync(path.join(dir, 'box.key')).mode & 0o777).toBe(0o600);
    expect(box.log.text()).not.toMatch(/PRIVATE KEY|BEGIN/);
  });

  it('a box started with a certificate near its end renews it at start', async () => {
    const dir = await siteCaDir();
    const short = await issueCert({ dir, ips: ['127.0.0.1'], names: ['box.lan'], days: 5 });
    const box = await siteTlsBox(dir);
    closing.push(box.close);
    await until(
      async () => (await servedCert(box.port, caOf(dir), 'box.lan')).serialNumber.toUpperCase() !== short.serialNumber,
    );
  });

  it('a renewal that fails (no CA key on the box) is logged and tried again an hour later, not every minute', async () => {
    const dir = await siteCaDir();
    const short = await issueCert({ dir, ips: ['127.0.0.1'], names: ['box.lan'], days: 10 });
    fs.rmSync(path.join(dir, 'ca.key'));
    const box = await siteTlsBox(dir);
    closing.push(box.close);
    await box.siteTls.check();
    await box.siteTls.check();
    const failures = box.log.lines.filter((l) => l.msg.startsWith('tls: renovação do certificado falhou'));
    expect(failures).toHaveLength(1);
    expect(failures[0]!.level).toBe('error');
    expect(JSON.stringify(failures[0]!.obj)).toMatch(/falta a chave da CA/);
    expect((await servedCert(box.port, caOf(dir), 'box.lan')).serialNumber.toUpperCase()).toBe(short.serialNumber);
  });

  it('after the CA is replaced, keeps the old certificate until one from the new CA is issued', async () => {
    const dir = await siteCaDir();
    const box = await siteTlsBox(dir);
    closing.push(box.close);
    const before = serialOf(path.join(dir, 'box.pem'));
    await makeCa({ dir, subnets: [parseSubnet('127.0.0.0/8')], name: 'Parque Novo', force: true });
    await box.siteTls.check();
    const refused = box.log.lines.find((l) => l.msg === 'tls: novo certificado recusado');
    expect(JSON.stringify(refused?.obj)).toMatch(/box\.pem não foi assinado pela CA ca\.pem/);
    expect((await servedCert(box.port, caOf(dir), 'box.lan').catch(() => null))?.serialNumber).toBeUndefined();
    const issued = await issueCert({ dir, ips: ['127.0.0.1'], names: ['box.lan'] });
    await box.siteTls.check();
    const served = await servedCert(box.port, caOf(dir), 'box.lan');
    expect(served.serialNumber.toUpperCase()).toBe(issued.serialNumber);
    expect(served.serialNumber.toUpperCase()).not.toBe(before);
  });

  it('keeps serving the old certificate when the new files do not go together', async () => {
    const dir = await siteCaDir();
    const box = await siteTlsBox(dir);
    closing.push(box.close);
    const before = serialOf(path.join(dir, 'box.pem'));
    const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    fs.writeFileSync(path.join(dir, 'box.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await box.siteTls.check();
    expect((await servedCert(box.port, caOf(dir), 'box.lan')).serialNumber.toUpperCase()).toBe(before);
    expect(box.log.lines.map((l) => l.msg)).toContain('tls: novo certificado recusado');
    expect(box.log.text()).not.toMatch(/PRIVATE KEY|BEGIN/);
  });
});

describe('the CA on plain HTTP', () => {
  it('/ca shows the fingerprint and the Android steps; /ca.crt is the DER, /ca.pem the PEM; never a key', async () => {
    const dir = await siteCaDir();
    const box = await siteTlsBox(dir, { caPort: 0 });
    closing.push(box.close);
    const caPort = box.caPort!;
    const ca = new crypto.X509Certificate(caOf(dir));

    const page = await plainGet(caPort, '/ca');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = page.body.toString();
    expect(html).toContain(ca.fingerprint256);
    expect(html).toContain('Criptografia e credenciais → Instalar um certificado → Certificado de CA');

    const der = await plainGet(caPort, '/ca.crt');
    expect(der.headers['content-type']).toBe('application/x-x509-ca-cert');
    expect(der.body).toEqual(ca.raw);
    const pem = await plainGet(caPort, '/ca.pem');
    expect(pem.body.toString()).toBe(caOf(dir).toString());

    for (const p of ['/ca.key', '/box.key', '/tls/ca.key', '/../ca.key', '/ca.pem/../ca.key', '/box.pem']) {
      const res = await plainGet(caPort, p);
      expect(res.status, p).not.toBe(200);
      expect(res.body.toString(), p).not.toMatch(/PRIVATE KEY|BEGIN/);
    }
  });

  it('sends everything else to the https origin (308), and answers other methods in the error envelope', async () => {
    const dir = await siteCaDir();
    const box = await siteTlsBox(dir, { caPort: 0 });
    closing.push(box.close);
    const caPort = box.caPort!;
    const moved = await plainGet(caPort, '/console/?x=1', { host: `box.lan:${caPort}` });
    expect(moved.status).toBe(308);
    expect(moved.headers.location).toBe(`https://box.lan:${box.port}/console/?x=1`);
    const post = await plainGet(caPort, '/api/v1/checkin', { method: 'POST' });
    expect(post.status).toBe(404);
    expect(JSON.parse(post.body.toString())).toEqual({
      success: false,
      error: {
        code: 'NOT_FOUND',
        message: 'Esta porta HTTP só entrega a CA da rede local (GET /ca); a API está em HTTPS.',
      },
    });
    const noHost = await plainGet(caPort, '/api', { host: 'a b' });
    expect(noHost.status).toBe(404);
    expect(JSON.parse(noHost.body.toString()).error.code).toBe('NOT_FOUND');
  });
});

describe('configuration', () => {
  it('GATE_TLS_DIR: the box from its environment serves HTTPS from the dir; the CA port defaults to 8081, 0 is off', async () => {
    const dir = await siteCaDir();
    const data = tempDir();
    expect(loadConfig({ GATE_DATA_DIR: data, GATE_TLS_DIR: dir }).siteTls).toEqual({ dir, caPort: 8081 });
    const config = loadConfig({
      GATE_DATA_DIR: data,
      GATE_TLS_DIR: dir,
      GATE_HOST: '127.0.0.1',
      GATE_PORT: '0',
      GATE_HTTP_CA_PORT: '0',
    });
    const box = createBoxFromConfig(config, { logger: pino({ level: 'silent' }), out: new PassThrough(), env: {} });
    closing.push(() => box.close());
    const running = await box.start();
    expect(running.caPort).toBeUndefined();
    const served = await servedCert(Number(new URL(running.url!).port), caOf(dir), 'box.lan');
    expect(served.serialNumber.toUpperCase()).toBe(serialOf(path.join(dir, 'box.pem')));
  });

  it('a CA port already taken stops the start, naming GATE_HTTP_CA_PORT', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    closing.push(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as net.AddressInfo).port;
    await expect(siteTlsBox(await siteCaDir(), { caPort: port })).rejects.toThrow(
      `GATE_HTTP_CA_PORT: não foi possível escutar em 127.0.0.1:${port} (EADDRINUSE)`,
    );
  });

  it('refuses GATE_TLS_DIR with GATE_TLS_CERT, and a CA port equal to the box port', () => {
    expect(() => loadConfig({ GATE_TLS_DIR: '/x', GATE_TLS_CERT: '/c', GATE_TLS_KEY: '/k' })).toThrow(
      'GATE_TLS_DIR: use GATE_TLS_DIR ou GATE_TLS_CERT e GATE_TLS_KEY, não os dois',
    );
    expect(() => loadConfig({ GATE_TLS_DIR: '/x', GATE_PORT: '8081' })).toThrow(
      /GATE_HTTP_CA_PORT: deve ser diferente de GATE_PORT/,
    );
  });

  it('a dir without the box certificate stops the start, naming the file and the commands', async () => {
    const dir = tempDir();
    const config = loadConfig({ GATE_DATA_DIR: tempDir(), GATE_TLS_DIR: dir });
    expect(() =>
      createBoxFromConfig(config, { logger: pino({ level: 'silent' }), out: new PassThrough(), env: {} }),
    ).toThrow(/GATE_TLS_DIR: não foi possível ler .*box\.pem \(ENOENT\); crie com gate tls ca e gate tls issue/);
  });
});
