import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type tls from 'node:tls';
import { ConfigError } from '../config.js';
import type { Log } from '../lib/log.js';
import { issueCert, namesOf, TLS_FILES } from './site-ca.js';

// The box's HTTPS from a site CA dir (GATE_TLS_DIR): read at start, then checked every minute. New files (gate tls
// issue while the box runs) are loaded without a restart; a certificate with under 30 days left is renewed by the box
// (same names, new key) with the CA key of the dir. One log line per reload, never key material.

/** What staff see (status, console): the CA to compare on a handheld, and when the box's certificate ends. */
export interface SiteTlsInfo {
  /** SHA-256 of the CA certificate, `AB:CD:...`. */
  caFingerprint: string;
  certExpiresAt: string;
  certSerial: string;
  ips: string[];
  names: string[];
}

export interface SiteTls {
  /** The pair the HTTPS server starts with. */
  readonly https: { cert: Buffer; key: Buffer };
  info(): SiteTlsInfo;
  /** The CA certificate (PEM): what /ca hands out. Never the key. */
  caPem(): Buffer;
  /** Swaps the server's certificate whenever new files are read; the first check runs at once. */
  watch(server: tls.Server): void;
  /** One check now (the timer's; tests call it): reload new files, renew when due. */
  check(): Promise<void>;
  close(): void;
}

const DAY_MS = 86_400_000;

interface Loaded {
  cert: Buffer;
  key: Buffer;
  ca: Buffer;
  leaf: crypto.X509Certificate;
  caCert: crypto.X509Certificate;
  stamp: string;
}

function stampOf(dir: string): string {
  return [TLS_FILES.cert, TLS_FILES.key, TLS_FILES.caCert]
    .map((f) => {
      const s = fs.statSync(path.join(dir, f));
      // The inode too: gate tls and the renewal rename new files in, which a coarse mtime could miss.
      return `${s.ino}:${s.mtimeMs}:${s.size}`;
    })
    .join('|');
}

/** The dir's pair, checked to go together and to be the CA's; a ConfigError naming the file otherwise. */
function load(dir: string, tlsOf: (o: tls.SecureContextOptions) => unknown): Loaded {
  const read = (name: string) => {
    const file = path.join(dir, name);
    try {
      return fs.readFileSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new ConfigError(
        `GATE_TLS_DIR: não foi possível ler ${file} (${code}); crie com gate tls ca e gate tls issue, como o usuário do serviço`,
      );
    }
  };
  // Stamped before reading: a file replaced in between is read again on the next check.
  let stamp = '';
  try {
    stamp = stampOf(dir);
  } catch {
    // a missing file is named by read() below
  }
  const [cert, key, ca] = [read(TLS_FILES.cert), read(TLS_FILES.key), read(TLS_FILES.caCert)];
  let leaf: crypto.X509Certificate;
  let caCert: crypto.X509Certificate;
  try {
    leaf = new crypto.X509Certificate(cert);
    caCert = new crypto.X509Certificate(ca);
    tlsOf({ cert, key });
  } catch (error) {
    throw new ConfigError(
      `GATE_TLS_DIR: ${TLS_FILES.cert} e ${TLS_FILES.key} em ${dir} não formam um par (${String(error)})`,
    );
  }
  if (!leaf.checkIssued(caCert) || !leaf.verify(caCert.publicKey))
    throw new ConfigError(`GATE_TLS_DIR: ${TLS_FILES.cert} não foi assinado pela CA ${TLS_FILES.caCert} de ${dir}`);
  return { cert, key, ca, leaf, caCert, stamp };
}

export function createSiteTls({
  dir,
  log,
  createSecureContext,
  checkMs = 60_000,
  renewDays = 30,
  now = () => Date.now(),
}: {
  dir: string;
  log: Log;
  createSecureContext: (o: tls.SecureContextOptions) => tls.SecureContext;
  checkMs?: number;
  renewDays?: number;
  now?: () => number;
}): SiteTls {
  let current = load(dir, createSecureContext);
  let server: tls.Server | undefined;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> | undefined;
  /** A failed renewal is tried again after an hour, not every minute. */
  let renewFailedAt = -Infinity;
  let loadFailedStamp: string | undefined;

  const info = (): SiteTlsInfo => ({
    caFingerprint: current.caCert.fingerprint256,
    certExpiresAt: new Date(current.leaf.validTo).toISOString(),
    certSerial: current.leaf.serialNumber,
    ...namesOf(current.leaf),
  });

  function reloadIfChanged(): void {
    let stamp;
    try {
      stamp = stampOf(dir);
    } catch {
      return; // a file being replaced; the next check sees it
    }
    if (stamp === current.stamp || stamp === loadFailedStamp) return;
    try {
      const next = load(dir, createSecureContext);
      server?.setSecureContext({ cert: next.cert, key: next.key });
      current = next;
      loadFailedStamp = undefined;
      log.info({ serial: next.leaf.serialNumber, expira: info().certExpiresAt }, 'tls: certificado recarregado');
    } catch (error) {
      loadFailedStamp = stamp;
      log.warn({ err: error instanceof Error ? error.message : String(error) }, 'tls: novo certificado recusado');
    }
  }

  async function renewIfDue(): Promise<void> {
    const left = Date.parse(current.leaf.validTo) - now();
    if (left > renewDays * DAY_MS || now() - renewFailedAt < DAY_MS / 24) return;
    try {
      await issueCert({ dir, ...namesOf(current.leaf) });
      reloadIfChanged();
    } catch (error) {
      renewFailedAt = now();
      log.error(
        { err: error instanceof Error ? error.message : String(error), expira: info().certExpiresAt },
        'tls: renovação do certificado falhou; nova tentativa em uma hora',
      );
    }
  }

  const check = () =>
    (checking ??= (async () => {
      reloadIfChanged();
      await renewIfDue();
    })().finally(() => (checking = undefined)));

  return {
    https: { cert: current.cert, key: current.key },
    info,
    caPem: () => current.ca,
    watch(s) {
      server = s;
      void check();
      timer = setInterval(() => void check(), checkMs);
      timer.unref();
    },
    check,
    close() {
      clearInterval(timer);
    },
  };
}
