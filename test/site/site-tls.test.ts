import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hubTls, refusedCertificate } from '../../src/site/hub-tls.js';
import { STREAM } from '../../src/site/site-messages.js';
import { gate } from '../cli/run.js';
import { createTestBox, tempDir, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { ROOT } from '../support/gate-process.js';
import { checkin } from '../support/http.js';
import { NATS_SERVER, siteLinkOf, startHub, type Hub } from '../support/site-hub.js';
import { eventually } from '../support/sync-gate.js';

// TLS on the site (docs/site.md, "TLS on the site"), as the IT lead sets it up: the documented openssl block run
// as written by bash (only its home folder is a temp dir, and the hub's IP is loopback's), the hub configured with
// hub-config's TLS options on Debian's nats-server, and boxes with the site's CA, another CA, or none.

const doc = fs.readFileSync(path.join(ROOT, 'docs/site.md'), 'utf8');
const DOC_HUB_IP = '10.0.0.10';

/** The ```sh block of docs/site.md that holds `marker`. */
function block(marker: string): string {
  const found = [...doc.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].find((m) => m[1]!.includes(marker));
  if (!found) throw new Error(`no sh block with ${marker} in docs/site.md`);
  return found[1]!;
}

/** Runs the IT lead's block with HOME at `home`; the CA and the hub's files land in home/site-ca. */
function makeCa(home: string) {
  const script = block('openssl req -x509');
  expect(script).toContain(`IP:${DOC_HUB_IP},`);
  const run = spawnSync('bash', ['-e', '-c', script.replaceAll(DOC_HUB_IP, '127.0.0.1')], {
    cwd: home,
    env: { PATH: process.env.PATH, HOME: home },
    encoding: 'utf8',
  });
  expect(run.stderr + run.stdout).toContain('hub.pem: OK');
  expect(run.status).toBe(0);
  const dir = path.join(home, 'site-ca');
  return {
    dir,
    ca: path.join(dir, 'site-ca.pem'),
    caKey: path.join(dir, 'site-ca-key.pem'),
    cert: path.join(dir, 'hub.pem'),
    key: path.join(dir, 'hub-key.pem'),
  };
}

/**
 * The site's hub certificate again (same key, same names from hub.ext) but valid only in January 2025: OpenSSL 3.0's
 * `x509 -req` always starts a certificate now, so this signs with `openssl ca` and a throwaway CA database.
 */
function expiredHubCert(ca: ReturnType<typeof makeCa>): string {
  const dir = tempDir('gate-expired-');
  fs.mkdirSync(path.join(dir, 'new'));
  fs.writeFileSync(path.join(dir, 'index.txt'), '');
  fs.writeFileSync(path.join(dir, 'serial'), '1000\n');
  const ext = fs.readFileSync(path.join(ca.dir, 'hub.ext'), 'utf8').trim().split('\n');
  fs.writeFileSync(
    path.join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = old',
      '[old]',
      `database = ${dir}/index.txt`,
      `new_certs_dir = ${dir}/new`,
      `serial = ${dir}/serial`,
      'default_md = sha256',
      'policy = any',
      'x509_extensions = hub',
      '[any]',
      'commonName = supplied',
      '[hub]',
      ...ext,
    ].join('\n'),
  );
  const out = path.join(dir, 'hub-expired.pem');
  const signed = spawnSync(
    'openssl',
    [
      'ca',
      '-batch',
      '-config',
      path.join(dir, 'ca.cnf'),
      '-cert',
      ca.ca,
      '-keyfile',
      ca.caKey,
      '-in',
      path.join(ca.dir, 'hub.csr'),
      '-out',
      out,
      '-startdate',
      '20250101000000Z',
      '-enddate',
      '20250201000000Z',
    ],
    { encoding: 'utf8' },
  );
  expect(signed.status, signed.stderr).toBe(0);
  return out;
}

let site: ReturnType<typeof makeCa>;
let other: ReturnType<typeof makeCa>;
let hub: Hub;
const boxes: TestBox[] = [];

beforeAll(async () => {
  site = makeCa(tempDir('gate-ca-'));
  other = makeCa(tempDir('gate-other-ca-'));
  hub = await startHub({
    boxes: ['norte', 'sul', 'leste'],
    tls: { certFile: site.cert, keyFile: site.key, caFile: site.ca },
  });
});
afterEach(async () => {
  await Promise.all(boxes.splice(0).map((b) => b.close()));
});
afterAll(async () => {
  await hub?.close();
});

async function siteBox(name: string, caFile: string | undefined) {
  const box = await createTestBox({
    // Without the CA the box takes nats:// only (src/site-config.ts refuses tls:// without GATE_SITE_NATS_CA).
    siteLink: { ...siteLinkOf(hub, name), urls: [`${caFile ? 'tls' : 'nats'}://127.0.0.1:${hub.port}`], caFile },
  });
  boxes.push(box);
  box.importOrders([makeOrder({ numero: '20261121-0001', prefix: 'S', people: 3 })]);
  return box;
}

const siteAnswer = async (box: TestBox) =>
  (await box.app.inject({ url: '/api/local/site', headers: { 'x-api-key': box.keys.all } })).json().data;

const handshakeErrors = () => hub.logs().match(/TLS handshake error/g)?.length ?? 0;

describe('TLS on the site', () => {
  it('the documented openssl block makes the CA and a hub certificate naming the hub, its keys private', () => {
    for (const file of [site.caKey, site.key]) expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const cert = new X509Certificate(fs.readFileSync(site.cert));
    expect(cert.subjectAltName).toBe('IP Address:127.0.0.1, DNS:gate-hub.parque.lan');
    expect(cert.checkIssued(new X509Certificate(fs.readFileSync(site.ca)))).toBe(true);
  });

  it('hub-config writes the tls block nats-server 2.9.10 accepts, and wants the certificate and key together', async () => {
    const dir = tempDir('gate-hub-tls-');
    const out = path.join(dir, 'hub');
    const made = await gate(dir, [
      'site',
      'hub-config',
      '--boxes',
      'norte,sul',
      '--out',
      out,
      '--tls-cert',
      site.cert,
      '--tls-key',
      site.key,
    ]);
    expect(made.code).toBe(0);
    const conf = path.join(out, 'nats-server.conf');
    expect(fs.readFileSync(conf, 'utf8')).toContain(
      `tls {\n  cert_file: ${JSON.stringify(site.cert)}\n  key_file: ${JSON.stringify(site.key)}\n  timeout: 2\n}`,
    );
    const checked = spawnSync(NATS_SERVER, ['-c', conf, '-t'], { encoding: 'utf8' });
    expect(checked.stderr + checked.stdout).toMatch(/is valid/);
    expect(checked.status).toBe(0);

    const alone = await gate(dir, ['site', 'hub-config', '--boxes', 'norte', '--out', out, '--tls-cert', site.cert]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/informe --tls-cert e --tls-key juntos/);
    const relative = await gate(dir, [
      'site',
      'hub-config',
      '--boxes',
      'norte',
      '--out',
      path.join(dir, 'x'),
      '--tls-cert',
      'hub.pem',
      '--tls-key',
      'hub-key.pem',
    ]);
    expect(relative.code).toBe(2);
    expect(relative.stderr).toMatch(/--tls-cert deve ser um caminho absoluto no hub: hub\.pem/);
  });

  it('a box with the site CA reaches the site over TLS and claims its check-in on the hub', async () => {
    const norte = await siteBox('norte', site.ca);
    await eventually('site mode', async () => (await siteAnswer(norte)).modo === 'site');
    expect((await checkin(norte, { qr_code: 'S-1', terminal: 'norte-1' })).status).toBe(200);
    expect(norte.status.site()).toMatchObject({ decisoes_sem_site_hoje: 0, pendentes: 0 });
    // Read back over TLS with a nats:// URL: the client upgrades it since the hub requires TLS.
    const stored = (await hub.read(STREAM)).map((m) => JSON.parse(m.data) as Record<string, unknown>);
    expect(stored).toContainEqual(expect.objectContaining({ box: 'norte', action: 'checkin', local: false }));
  });

  it('a box with another CA, or with none, refuses the hub: it stays local and checks in alone', async () => {
    for (const [name, caFile] of [
      ['sul', other.ca],
      ['leste', undefined],
    ] as const) {
      const before = handshakeErrors();
      const box = await siteBox(name, caFile);
      // Two refused handshakes: the box tried, failed, and tried again.
      await eventually(`${name}: handshakes refused`, () => handshakeErrors() >= before + 2);
      expect((await checkin(box, { qr_code: 'S-2', terminal: `${name}-1` })).status).toBe(200);
      expect(await siteAnswer(box)).toMatchObject({
        modo: 'local',
        motivo: 'certificado_do_hub',
        hub: { conectado: false },
        decisoes_sem_site_hoje: 1,
        pendentes: 1,
      });
    }
    const stored = (await hub.read(STREAM)).map((m) => JSON.parse(m.data) as { box: string });
    expect(stored.filter((m) => m.box !== 'norte')).toEqual([]);
  });

  it('the hub cuts off a client that does not speak TLS, a box password or not', async () => {
    const socket = net.connect(hub.port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => {
      received += d.toString();
      // A hub that answered (PONG, +OK, -ERR) let it in: no need to wait for a close that never comes.
      if (/\r\n(PONG|\+OK|-ERR)/.test(received)) socket.destroy();
      else if (received.includes('\r\n') && !socket.writableEnded)
        socket.write(`CONNECT ${JSON.stringify({ user: 'gate-sul', pass: hub.password('sul') })}\r\nPING\r\n`);
    });
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const info = JSON.parse(received.slice('INFO '.length, received.indexOf('\r\n'))) as { tls_required?: boolean };
    expect(info.tls_required).toBe(true);
    expect(received.slice(received.indexOf('\r\n') + 2)).toBe(''); // no +OK, no PONG: nothing after INFO
    expect(hub.logs()).toMatch(/TLS handshake error: tls: first record does not look like a TLS handshake/);
  });

  it('a box checks the hub’s name: a certificate of the site CA for another host is refused', async () => {
    const byName = { urls: [`tls://localhost:${hub.port}`], caFile: site.ca };
    const refused = await connect({
      servers: byName.urls,
      user: 'gate-norte',
      pass: hub.password('norte'),
      reconnect: false,
      ...hubTls(byName),
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    // What the link can tell the IT lead: a certificate refused, not a hub away.
    expect(refusedCertificate(refused)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(refusedCertificate(new Error('connection refused'))).toBeUndefined();
  });

  it('a box with the site CA refuses a hub without TLS', async () => {
    const plain = await startHub({ boxes: ['norte'] });
    try {
      const urls = [`tls://127.0.0.1:${plain.port}`];
      await expect(
        connect({
          servers: urls,
          user: 'gate-norte',
          pass: plain.password('norte'),
          reconnect: false,
          ...hubTls({ urls, caFile: site.ca }),
        }),
      ).rejects.toThrow(/does not support 'tls'/);
    } finally {
      await plain.close();
    }
  });
  it('a box refuses a hub whose certificate expired: it stays local, says certificado_do_hub, and checks in alone', async () => {
    const expired = expiredHubCert(site);
    const cert = new X509Certificate(fs.readFileSync(expired));
    expect(cert.validTo).toMatch(/2025/);
    expect(cert.checkIssued(new X509Certificate(fs.readFileSync(site.ca)))).toBe(true);
    // nats-server starts with it (it does not look at the dates), as a hub left unrenewed would.
    const old = await startHub({ boxes: ['norte'], tls: { certFile: expired, keyFile: site.key, caFile: site.ca } });
    try {
      const urls = [`tls://127.0.0.1:${old.port}`];
      const refused = await connect({
        servers: urls,
        user: 'gate-norte',
        pass: old.password('norte'),
        reconnect: false,
        ...hubTls({ urls, caFile: site.ca }),
      }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refusedCertificate(refused)).toBe('CERT_HAS_EXPIRED');
      const box = await createTestBox({ siteLink: { ...siteLinkOf(old, 'norte'), urls, caFile: site.ca } });
      boxes.push(box);
      box.importOrders([makeOrder({ numero: '20261121-0009', prefix: 'X', people: 1 })]);
      await eventually('certificate named', async () => (await siteAnswer(box)).motivo === 'certificado_do_hub');
      expect((await checkin(box, { qr_code: 'X-1', terminal: 'norte-1' })).status).toBe(200);
      expect(await siteAnswer(box)).toMatchObject({ modo: 'local', hub: { conectado: false }, pendentes: 1 });
    } finally {
      await old.close();
    }
  });

  it('a connected box whose hub comes back with a certificate it refuses says so, and returns with the right one', async () => {
    const leste = await siteBox('leste', site.ca);
    await eventually('site mode', async () => (await siteAnswer(leste)).modo === 'site');
    // The hub restarted with a certificate of another CA at the same paths (a renewal gone wrong).
    await hub.stop();
    const kept = { cert: fs.readFileSync(site.cert), key: fs.readFileSync(site.key) };
    fs.copyFileSync(other.cert, site.cert);
    fs.copyFileSync(other.key, site.key);
    try {
      await hub.restart();
      await eventually('certificate named', async () => (await siteAnswer(leste)).motivo === 'certificado_do_hub');
      expect(await siteAnswer(leste)).toMatchObject({ modo: 'local', hub: { conectado: false } });
      expect((await checkin(leste, { qr_code: 'S-3', terminal: 'leste-1' })).status).toBe(200);
    } finally {
      await hub.stop();
      fs.writeFileSync(site.cert, kept.cert);
      fs.writeFileSync(site.key, kept.key);
      await hub.restart();
    }
    await eventually('back on the site', async () => (await siteAnswer(leste)).modo === 'site', 20_000);
  });
});
