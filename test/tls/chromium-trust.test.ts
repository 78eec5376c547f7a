import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, SUPERVISOR, signIn } from '../support/console-browser.js';
import { tempDir } from '../support/temp.js';
import { siteCaDir, siteTlsBox } from './support.js';

// What a handheld sees once the site CA is installed: Debian's Chromium trusting the CA through its NSS database
// (as `certutil` puts it there, the Linux counterpart of Android's "Install a certificate"), never told to ignore
// certificate errors, reaching the box by its .lan name.

const NSS = (home: string) => `sql:${path.join(home, '.pki', 'nssdb')}`;

/** A HOME whose NSS database trusts `caPem` for TLS servers, or trusts nothing when caPem is undefined. */
function homeWithNss(caPem?: string): string {
  const home = tempDir('gate-nss-');
  fs.mkdirSync(path.join(home, '.pki', 'nssdb'), { recursive: true });
  execFileSync('certutil', ['-d', NSS(home), '-N', '--empty-password'], { stdio: 'pipe' });
  if (caPem)
    execFileSync('certutil', ['-d', NSS(home), '-A', '-t', 'C,,', '-n', 'site-ca', '-i', caPem], { stdio: 'pipe' });
  return home;
}

function launch(home: string): Promise<Browser> {
  expect(CHROMIUM_ARGS.join(' ')).not.toMatch(/ignore-certificate/);
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      ...CHROMIUM_ARGS,
      '--host-resolver-rules=MAP box.lan 127.0.0.1, MAP fora.example 127.0.0.1, MAP dentro.lan 127.0.0.1',
    ],
    env: { ...process.env, HOME: home },
  });
}

let dir: string;
let box: Awaited<ReturnType<typeof siteTlsBox>>;
beforeAll(async () => {
  dir = await siteCaDir();
  box = await siteTlsBox(dir);
});
afterAll(async () => box?.close());

describe('Chromium with the site CA in its NSS database', () => {
  it('loads https://box.lan:PORT/ as a secure context, and the IP too', async () => {
    const browser = await launch(homeWithNss(path.join(dir, 'ca.pem')));
    try {
      const page = await browser.newPage();
      const answer = await page.goto(`https://box.lan:${box.port}/health`);
      expect(answer?.status()).toBe(200);
      expect(await page.evaluate('window.isSecureContext')).toBe(true);
      expect(await page.evaluate('location.protocol')).toBe('https:');
      const byIp = await page.goto(`https://127.0.0.1:${box.port}/health`);
      expect(byIp?.status()).toBe(200);
      expect(await page.evaluate('window.isSecureContext')).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('the console over HTTPS shows the CA fingerprint and the certificate end on the Sincronização screen', async () => {
    await box.addSupervisor(SUPERVISOR.nome, SUPERVISOR.segredo);
    const browser = await launch(homeWithNss(path.join(dir, 'ca.pem')));
    try {
      const page = await browser.newPage();
      await page.goto(`https://box.lan:${box.port}/console/#/sync`);
      await signIn(page, SUPERVISOR);
      await page.goto(`https://box.lan:${box.port}/console/#/sync`);
      const fingerprint = new crypto.X509Certificate(fs.readFileSync(path.join(dir, 'ca.pem'))).fingerprint256;
      await expect.poll(() => page.locator('#ca-sha256').textContent(), { timeout: 10_000 }).toBe(fingerprint);
      expect(await page.getByText('Certificado da caixa válido até').isVisible()).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('without the CA the same address fails', async () => {
    const browser = await launch(homeWithNss());
    try {
      const page = await browser.newPage();
      await expect(page.goto(`https://box.lan:${box.port}/health`)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await browser.close();
    }
  });

  it('a certificate the CA key signs behind gate for a name outside .lan is refused; the same for a .lan name is not', async () => {
    const outside = await serveSignedFor('fora.example');
    const inside = await serveSignedFor('dentro.lan');
    const browser = await launch(homeWithNss(path.join(dir, 'ca.pem')));
    try {
      // One page each: a failed navigation's error page could interrupt the next one on the same page.
      expect((await (await browser.newPage()).goto(`https://dentro.lan:${inside.port}/`))?.status()).toBe(200);
      // The builtin verifier words a broken name constraint as an invalid certificate.
      await expect((await browser.newPage()).goto(`https://fora.example:${outside.port}/`)).rejects.toThrow(
        /ERR_CERT_INVALID|ERR_CERT_NAME_CONSTRAINT_VIOLATION/,
      );
    } finally {
      await browser.close();
      outside.server.close();
      inside.server.close();
    }
  });
});

/** An HTTPS server with a certificate for `name` signed straight with the CA key by openssl, without gate's checks. */
async function serveSignedFor(name: string) {
  const at = tempDir();
  const file = (f: string) => path.join(at, f);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file('k.pem'));
  fs.writeFileSync(file('ext'), `subjectAltName=DNS:${name}\nextendedKeyUsage=serverAuth\n`);
  openssl('req', '-new', '-key', file('k.pem'), '-subj', `/CN=${name}`, '-out', file('csr'));
  openssl(
    'x509', '-req', '-in', file('csr'), '-CA', path.join(dir, 'ca.pem'), '-CAkey', path.join(dir, 'ca.key'),
    '-set_serial', '7', '-days', '30', '-extfile', file('ext'), '-out', file('c.pem'),
  ); // prettier-ignore
  const server = https.createServer(
    { key: fs.readFileSync(file('k.pem')), cert: fs.readFileSync(file('c.pem')) },
    (_req, res) => res.end(name),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
