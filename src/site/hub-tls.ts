import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { SiteConfig } from '../site-config.js';

// TLS to the hub with the site's CA (docs/site.md, "TLS on the site"). The chain is checked against that CA only,
// and the hub's name against the hosts of GATE_SITE_NATS_URLS. The NATS client (@nats-io/transport-node 3.3)
// upgrades the socket without a server name when a URL holds an IP address, so Node would check the certificate
// against "localhost": a hub reached at tls://10.0.0.10 would be refused although its certificate names 10.0.0.10.

/** The hosts of the hub URLs (`tls://10.0.0.10:4222` → `10.0.0.10`). */
export const hubHosts = (urls: readonly string[]) =>
  urls.map((u) => new URL(u.replace(/^(nats|tls):/, 'http:')).hostname.replace(/^\[(.*)\]$/, '$1'));

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
