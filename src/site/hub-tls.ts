import fs from 'node:fs';
import net from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate } from 'node:tls';
import type { SiteConfig } from '../site-config.js';

// TLS to the hub with the site's CA (docs/site.md, "TLS on the site"). The chain is checked against that CA only,
// and the hub's name against the hosts of GATE_SITE_NATS_URLS. The NATS client (@nats-io/transport-node 3.3)
// upgrades the socket without a server name when a URL holds an IP address, so Node would check the certificate
// against "localhost": a hub reached at tls://10.0.0.10 would be refused although its certificate names 10.0.0.10.

/** A hub URL's host and port (`tls://10.0.0.10:4222` → 10.0.0.10, 4222; NATS's port when none is given). */
function hubAddress(url: string) {
  const u = new URL(url.replace(/^(nats|tls):/, 'http:'));
  return { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(u.port || 4222) };
}

/** The hosts of the hub URLs (`tls://10.0.0.10:4222` → `10.0.0.10`). */
export const hubHosts = (urls: readonly string[]) => urls.map((u) => hubAddress(u).host);

/** The NATS client's `tls` option, or nothing without GATE_SITE_NATS_CA (then the client takes the hub as it is). */
export function hubTls(config: Pick<SiteConfig, 'urls' | 'caFile'>) {
  if (!config.caFile) return {};
  const hosts = hubHosts(config.urls);
  return {
    tls: {
      caFile: config.caFile,
      // Any hub of the site's list: the client does not say which one it reached, and all of them are the site's.
      checkServerIdentity(_host: string, cert: PeerCertificate) {
        const errors = hosts.map((h) => checkServerIdentity(h, cert));
        return errors.some((e) => e === undefined) ? undefined : errors[0];
      },
    },
  };
}

// Node's codes for a certificate the box refused (an unknown CA, another name, expired or not yet valid).
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Whether a failed connection to the hub was this box refusing the hub's certificate; its Node code if so. */
export function refusedCertificate(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CERTIFICATE_CODES.has(code) ? code : undefined;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * Whether this box refuses the certificate the hub shows now; Node's code if so. The NATS client's own reconnection
 * keeps its errors to itself, so a hub whose certificate expired or changed would look like a hub away: this looks
 * at the first hub of the list the way the client does (nats-server 2.9 speaks first in clear, its INFO line, then
 * the client upgrades the same socket to TLS: @nats-io/transport-node 3.3, lib/node_transport.js, `startTLS` after
 * the INFO with `tls_required`) and says what TLS thinks.
 */
export function certificateProblem(config: Pick<SiteConfig, 'urls' | 'caFile'>): Promise<string | undefined> {
  const options = hubTls(config).tls;
  if (!options) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const socket = net.connect(hubAddress(config.urls[0]!));
    const done = (code: string | undefined) => {
      socket.destroy();
      resolve(code);
    };
    socket.setTimeout(CHECK_TIMEOUT_MS, () => done(undefined));
    socket.once('error', () => done(undefined));
    socket.once('data', () => {
      const secure = tlsConnect({
        socket,
        ca: fs.readFileSync(options.caFile),
        checkServerIdentity: options.checkServerIdentity,
      });
      secure.once('secureConnect', () => done(undefined));
      secure.once('error', (err) => done(refusedCertificate(err)));
    });
  });
}
