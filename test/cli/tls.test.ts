import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { loadTls } from '../../src/http/tls.js';
import { tempDir, TZ } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { BIN, ensureBuilt, serveGate } from '../support/gate-process.js';
import { gate, writeImportFile } from './run.js';

// HTTPS served by the box itself (GATE_TLS_CERT, GATE_TLS_KEY): the real `gate serve` with a
// self-signed certificate made here by openssl, as docs/operations.md tells an IT lead to make one.

const children: ChildProcess[] = [];
let dir: string;
let cert: string;
let key: string;

/** A self-signed certificate for 127.0.0.1 and its private key (P-256), valid for a day. */
function makeCertificate(at: string, name: string): { cert: string; key: string } {
  const files = { cert: path.join(at, `${name}.crt`), key: path.join(at, `${name}.key`) };
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=gate-test',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      files.key,
      '-out',
      files.cert,
    ],
    { stdio: 'ignore' },
  );
  return files;
}

beforeAll(() => {
  ensureBuilt();
  dir = tempDir('gate-tls-');
  ({ cert, key } = makeCertificate(dir, 'box'));
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = client.request(
      url,
      {
        method: opts.method ?? 'GET',
        agent: false,
        ca: fs.readFileSync(cert),
        headers: { ...opts.headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('gate serve over HTTPS', () => {
  it('answers a check-in and the console over TLS, nothing in clear; the start line says https', async () => {
    expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
    const order = makeOrder({ prefix: 'TLS', people: 1, dataUso: createClock(TZ).today() });
    expect((await gate(dir, ['import', '--tenant', 'parque', writeImportFile(dir, { pedidos: [order] })])).code).toBe(
      0,
    );
    const apiKey = (
      await gate(dir, ['keys', 'create', '--tenant', 'parque', '--permissions', 'vouchers:checkin'])
    ).stdout.trim();
    const pin = (
      await gate(dir, ['operators', 'add', '--tenant', 'parque', '--name', 'Ana', '--role', 'atendente'])
    ).stdout.trim();

    const env = {
      PATH: process.env.PATH,
      GATE_DATA_DIR: dir,
      GATE_HOST: '127.0.0.1',
      GATE_PORT: '0',
      GATE_TENANT: 'parque',
      GATE_TIMEZONE: TZ,
      GATE_TLS_CERT: cert,
      GATE_TLS_KEY: key,
    };
    const box = await serveGate(env, dir, children);
    expect(box.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

    const checkin = await request(`${box.url}/api/v1/api-qrcode-checkin`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
      body: { qr_code: 'TLS-1' },
    });
    expect([checkin.status, checkin.body.success]).toEqual([200, true]);
    // The same port in clear: no HTTP answer, so a key sent that way is not accepted either.
    await expect(request(`${box.url.replace('https:', 'http:')}/health/live`, {})).rejects.toThrow();

    const signIn = await request(`${box.url}/api/console/entrar`, {
      method: 'POST',
      body: { nome: 'Ana', segredo: pin, tenant: 'parque' },
    });
    expect(signIn.status).toBe(200);
    // Over HTTPS the session cookie is Secure: a browser never sends it in clear.
    expect(signIn.headers['set-cookie']).toEqual([expect.stringMatching(/; HttpOnly; SameSite=Strict; Secure$/)]);

    box.child.kill('SIGTERM');
    expect(await new Promise((resolve) => box.child.once('exit', resolve))).toBe(0);
  });

  it('a certificate that cannot be read stops the start, naming the variable and the file', async () => {
    const missing = path.join(dir, 'nao-existe.key');
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        PATH: process.env.PATH,
        GATE_DATA_DIR: tempDir('gate-tls-bad-'),
        GATE_PORT: '0',
        GATE_HOST: '127.0.0.1',
        GATE_TLS_CERT: cert,
        GATE_TLS_KEY: missing,
      },
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(1);
    expect(stderr).toContain(
      `gate serve: não foi possível iniciar: GATE_TLS_KEY: não foi possível ler ${missing} (ENOENT)`,
    );
  });
});

describe('GATE_TLS_CERT and GATE_TLS_KEY', () => {
  it('both or neither', () => {
    expect(() => loadConfig({ GATE_TLS_CERT: cert })).toThrow(/GATE_TLS_KEY: obrigatória com GATE_TLS_CERT/);
    expect(() => loadConfig({ GATE_TLS_KEY: key })).toThrow(/GATE_TLS_CERT: obrigatório com GATE_TLS_KEY/);
    expect(loadConfig({}).tls).toBeUndefined();
    expect(loadConfig({ GATE_TLS_CERT: cert, GATE_TLS_KEY: key }).tls).toEqual({ certFile: cert, keyFile: key });
  });

  it('a key that is not the certificate’s is refused before anything starts', () => {
    const other = makeCertificate(dir, 'other');
    expect(() => loadTls({ certFile: cert, keyFile: other.key })).toThrow(ConfigError);
    expect(() => loadTls({ certFile: cert, keyFile: other.key })).toThrow(
      /não formam um certificado PEM com sua chave privada/,
    );
    expect(() => loadTls({ certFile: key, keyFile: key })).toThrow(/não formam/);
    expect(loadTls({ certFile: cert, keyFile: key }).cert.toString()).toContain('BEGIN CERTIFICATE');
  });
});
