import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import tls from 'node:tls';
import { createBox } from '../../src/box.js';
import { createClock } from '../../src/clock.js';
import { migrateToLatest, openDatabase } from '../../src/db/open.js';
import type { Log } from '../../src/lib/log.js';
import { createOperator } from '../../src/operators/operators.repo.js';
import { ensureTenant } from '../../src/tenants/tenants.repo.js';
import { issueCert, makeCa, parseSubnet } from '../../src/tls/site-ca.js';
import { createSiteTls } from '../../src/tls/site-tls.js';
import { tempDir, TZ } from '../support/box.js';

// A site CA dir for 127.0.0.0/8 (the test host) and the park's subnet, and a real box serving HTTPS from it.

export async function siteCaDir(): Promise<string> {
  const dir = path.join(tempDir(), 'tls');
  await makeCa({ dir, subnets: ['127.0.0.0/8', '192.168.10.0/24'].map(parseSubnet), name: 'Parque Teste' });
  await issueCert({ dir, ips: ['127.0.0.1', '192.168.10.5'], names: ['box.lan'] });
  return dir;
}

/** A log that keeps every line, to check what was said and that no key material was. */
export function recordingLog() {
  const lines: { level: string; obj: object; msg: string }[] = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push({ level, obj, msg });
  const log: Log = { info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines, text: () => lines.map((l) => `${l.msg} ${JSON.stringify(l.obj)}`).join('\n') };
}

export async function siteTlsBox(dir: string, opts: { checkMs?: number; caPort?: number } = {}) {
  const recorded = recordingLog();
  const siteTls = createSiteTls({
    dir,
    log: recorded.log,
    createSecureContext: tls.createSecureContext,
    checkMs: opts.checkMs ?? 3_600_000,
  });
  const database = path.join(tempDir(), 'gate.db');
  const clock = createClock(TZ);
  const seed = openDatabase(database);
  await migrateToLatest(seed);
  ensureTenant(seed, 'parque', clock.nowIso(), 'Parque Teste');
  seed.close();
  const box = createBox({
    database,
    clock,
    tenant: 'parque',
    logger: false,
    listen: { host: '127.0.0.1', port: 0 },
    https: siteTls.https,
    siteTls: { tls: siteTls, caPort: opts.caPort },
  });
  const running = await box.start();
  const port = Number(new URL(running.url!).port);
  const addSupervisor = (nome: string, segredo: string) =>
    createOperator(running.db, {
      tenantId: running.tenantId!,
      nome,
      papel: 'supervisor',
      segredo,
      nowIso: clock.nowIso(),
    });
  return { ...running, port, siteTls, log: recorded, addSupervisor, close: () => box.close() };
}

/** The certificate the box serves to a client that trusts only the site CA (a TLS failure rejects). */
export function servedCert(port: number, ca: Buffer, servername?: string): Promise<tls.DetailedPeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, ...(servername ? { servername } : {}) }, () => {
      const cert = socket.getPeerCertificate(true);
      socket.end();
      resolve(cert);
    });
    socket.once('error', reject);
  });
}

export const caOf = (dir: string) => fs.readFileSync(path.join(dir, 'ca.pem'));
export const serialOf = (file: string) => new crypto.X509Certificate(fs.readFileSync(file)).serialNumber;

export function plainGet(port: number, urlPath: string, opts: { method?: string; host?: string } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        method: opts.method ?? 'GET',
        headers: { host: opts.host ?? `127.0.0.1:${port}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.once('error', reject);
    req.end();
  });
}
