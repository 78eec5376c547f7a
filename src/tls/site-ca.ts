import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

// The site's own CA and the box's certificate (docs/handheld.md, "Contexto seguro na rede local"). Keys are made by
// node:crypto and written 0600 before anything else reads them; openssl signs (its nameConstraints syntax is the
// one every verifier was tested against).

const run = promisify(execFile);

/** The files of a TLS dir. ca.key is what lets the box renew its own certificate. */
export const TLS_FILES = { caCert: 'ca.pem', caKey: 'ca.key', cert: 'box.pem', key: 'box.key' } as const;
/** Days of a box certificate: the most browsers accept for a public one (398), minus a margin. */
export const LEAF_DAYS = 397;
const CA_DAYS = 3650;
/** The only DNS name (and its subdomains) the CA may vouch for. */
export const PERMITTED_DNS = 'lan';

/** A refusal worded for the IT lead (Portuguese), shown as is: never a stack trace. */
export class TlsSetupError extends Error {}

export interface Subnet {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

export const subnetText = (s: Subnet) => `${s.address}/${s.prefix}`;

/** `192.168.10.0/24` (or an IPv6 prefix); a TlsSetupError otherwise. */
export function parseSubnet(text: string): Subnet {
  const [address = '', prefixText, extra] = text.trim().split('/');
  const version = net.isIP(address);
  const max = version === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (version === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefixText ?? '') || prefix < 1 || prefix > max)
    throw new TlsSetupError(`rede inválida: "${text}" (use endereço/prefixo, ex.: 192.168.10.0/24)`);
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The subnet mask as openssl's nameConstraints writes it: `IP:192.168.10.0/255.255.255.0`. */
function maskOf(s: Subnet): string {
  const bytes = Array.from({ length: s.family === 'ipv4' ? 4 : 16 }, (_, i) =>
    Math.max(0, Math.min(8, s.prefix - i * 8)),
  ).map((bits) => (0xff << (8 - bits)) & 0xff);
  if (s.family === 'ipv4') return bytes.join('.');
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}

function prefixOfMask(mask: string): number {
  const parts = net.isIPv4(mask) ? mask.split('.').map(Number) : expandV6(mask);
  return parts.reduce((n, b) => n + b.toString(2).replace(/0/g, '').length, 0);
}

function expandV6(address: string): number[] {
  const [head = '', tail = ''] = address.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

/** A `.lan` host name: lower-case letters, digits, hyphens; `lan` itself is not a host. */
export const isLanName = (name: string) => /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+lan$/.test(name);

export interface CaInfo {
  readonly subnets: Subnet[];
  readonly dnsNames: string[];
  /** SHA-256 of the DER, `AB:CD:...`: what the IT lead compares on the handheld. */
  readonly fingerprint: string;
  readonly notAfter: Date;
}

/** The CA's constraints as its certificate states them (openssl prints the extension; node does not parse it). */
export async function readCa(dir: string): Promise<CaInfo> {
  const file = path.join(dir, TLS_FILES.caCert);
  if (!fs.existsSync(file)) throw new TlsSetupError(`não há CA em ${dir}: crie com gate tls ca --rede ...`);
  const cert = new crypto.X509Certificate(fs.readFileSync(file));
  const { stdout } = await run('openssl', ['x509', '-in', file, '-noout', '-ext', 'nameConstraints']);
  const subnets: Subnet[] = [];
  const dnsNames: string[] = [];
  for (const line of stdout.split('\n').map((l) => l.trim())) {
    const ip = /^IP:([^/]+)\/(.+)$/.exec(line);
    if (ip) subnets.push({ ...parseSubnet(`${ip[1]}/${prefixOfMask(ip[2]!)}`) });
    const dns = /^DNS:(.+)$/.exec(line);
    if (dns) dnsNames.push(dns[1]!);
  }
  return { subnets, dnsNames, fingerprint: cert.fingerprint256, notAfter: new Date(cert.validTo) };
}

/** Writes a new key, readable by its owner only; never over an existing file. */
function writeKey(file: string): void {
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  fs.writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  fs.chmodSync(file, 0o600); // a umask can only take bits away, but a group-readable mode must not survive
}

/** openssl -subj text: `/` `\` `+` `=` escaped, so a park's name cannot add fields. */
const subjectValue = (text: string) => text.replace(/[\\/+=]/g, (c) => `\\${c}`);

const serial = () => {
  const bytes = crypto.randomBytes(16);
  bytes[0]! &= 0x7f; // positive, as RFC 5280 asks
  return `0x${bytes.toString('hex')}`;
};

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? error).trim();
    throw new TlsSetupError(`openssl falhou: ${stderr.split('\n')[0] ?? ''}`);
  }
}

/** A scratch dir next to the files, so the final renames stay on one file system. */
function withScratch<T>(dir: string, fn: (scratch: string) => Promise<T>): Promise<T> {
  const scratch = fs.mkdtempSync(path.join(dir, '.novo-'));
  fs.chmodSync(scratch, 0o700);
  return fn(scratch).finally(() => fs.rmSync(scratch, { recursive: true, force: true }));
}

export interface MakeCaOptions {
  dir: string;
  subnets: Subnet[];
  name: string;
  force?: boolean;
}

/**
 * The site CA: EC P-256, 10 years, critical nameConstraints permitting only the given subnets and `.lan` names (a
 * stolen ca.key can vouch for nothing else), pathlen 0.
 */
export async function makeCa({ dir, subnets, name, force = false }: MakeCaOptions): Promise<CaInfo> {
  if (subnets.length === 0)
    throw new TlsSetupError(
      'informe ao menos uma rede com --rede (ex.: --rede 192.168.10.0/24): sem rede, a CA valeria para qualquer IP',
    );
  // X.509 caps an organisation's name at 64 characters; the CA's common name adds 19 to it.
  if (name.length > 40 || /[\p{Cc}]/u.test(name))
    throw new TlsSetupError('--nome: até 40 caracteres, sem quebras de linha (ex.: --nome "Parque Exemplo")');
  // Only the folder itself is private: a data dir made on the way keeps the usual mode.
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caCert = path.join(dir, TLS_FILES.caCert);
  const caKey = path.join(dir, TLS_FILES.caKey);
  if (!force && (fs.existsSync(caCert) || fs.existsSync(caKey)))
    throw new TlsSetupError(
      `já existe uma CA em ${dir}; uma nova exige reinstalar a CA em todos os aparelhos (use --forcar se é isso mesmo)`,
    );
  const permitted = [...subnets.map((s) => `permitted;IP:${s.address}/${maskOf(s)}`), `permitted;DNS:${PERMITTED_DNS}`];
  await withScratch(dir, async (scratch) => {
    const key = path.join(scratch, TLS_FILES.caKey);
    const cert = path.join(scratch, TLS_FILES.caCert);
    writeKey(key);
    await openssl([
      'req', '-x509', '-new', '-utf8', '-sha256', '-key', key, '-out', cert,
      '-days', String(CA_DAYS), '-set_serial', serial(),
      '-subj', `/O=${subjectValue(name)}/CN=${subjectValue(`${name} - CA da rede local`)}`,
      '-addext', 'basicConstraints=critical,CA:TRUE,pathlen:0',
      '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
      '-addext', `nameConstraints=critical,${permitted.join(',')}`,
    ]); // prettier-ignore
    fs.chmodSync(cert, 0o644);
    fs.renameSync(key, caKey);
    fs.renameSync(cert, caCert);
  });
  return readCa(dir);
}

export interface IssueOptions {
  dir: string;
  ips: string[];
  names: string[];
  /** LEAF_DAYS unless a test wants a certificate near its end. */
  days?: number;
}

/** What a certificate names, from node's SAN text (`DNS:box.lan, IP Address:192.168.10.5`). */
export function namesOf(cert: crypto.X509Certificate): { ips: string[]; names: string[] } {
  const entries = (cert.subjectAltName ?? '').split(', ').filter((e) => e !== '');
  return {
    ips: entries.filter((e) => e.startsWith('IP Address:')).map((e) => e.slice('IP Address:'.length)),
    names: entries.filter((e) => e.startsWith('DNS:')).map((e) => e.slice('DNS:'.length)),
  };
}

/** Every IP and name the CA cannot vouch for, worded; empty when all fit. */
export function outsideCa(ca: CaInfo, ips: string[], names: string[]): string[] {
  const problems: string[] = [];
  for (const ip of ips) {
    const family = net.isIP(ip);
    if (family === 0) {
      problems.push(`IP inválido: "${ip}"`);
      continue;
    }
    const list = new net.BlockList();
    for (const s of ca.subnets)
      if (s.family === (family === 4 ? 'ipv4' : 'ipv6')) list.addSubnet(s.address, s.prefix, s.family);
    if (!list.check(ip, family === 4 ? 'ipv4' : 'ipv6'))
      problems.push(`o IP ${ip} está fora das redes da CA (${ca.subnets.map(subnetText).join(', ')})`);
  }
  for (const name of names)
    if (!isLanName(name) || !ca.dnsNames.some((d) => name.endsWith(`.${d}`)))
      problems.push(`o nome "${name}" não é aceito pela CA: use um nome em .lan, ex.: caixa.lan (minúsculas)`);
  return problems;
}

/**
 * The box's certificate (serverAuth, the given SANs, a new key) signed by the site CA into box.pem (with the CA, the
 * chain a browser is sent) and box.key. The key is renamed into place before the certificate: a box reading between
 * the two renames finds a pair that does not match, keeps the old one and reads again on its next check.
 */
export async function issueCert({ dir, ips, names, days = LEAF_DAYS }: IssueOptions): Promise<crypto.X509Certificate> {
  if (ips.length === 0 && names.length === 0)
    throw new TlsSetupError(
      'informe ao menos um --ip ou --dns (os endereços pelos quais os aparelhos acessam a caixa)',
    );
  const ca = await readCa(dir);
  const caKey = path.join(dir, TLS_FILES.caKey);
  if (!fs.existsSync(caKey)) throw new TlsSetupError(`falta a chave da CA (${caKey}): sem ela não há como assinar`);
  const problems = outsideCa(ca, ips, names);
  if (problems.length > 0) throw new TlsSetupError(problems.join('; '));
  const caDaysLeft = Math.floor((ca.notAfter.getTime() - Date.now()) / 86_400_000);
  const validDays = Math.max(1, Math.min(days, caDaysLeft));
  const san = [...names.map((n) => `DNS:${n}`), ...ips.map((ip) => `IP:${ip}`)].join(',');
  return withScratch(dir, async (scratch) => {
    const key = path.join(scratch, TLS_FILES.key);
    const csr = path.join(scratch, 'box.csr');
    const ext = path.join(scratch, 'box.ext');
    const leaf = path.join(scratch, 'leaf.pem');
    writeKey(key);
    // The common name is the first .lan name, or a text no verifier takes for a host name.
    await openssl(['req', '-new', '-key', key, '-out', csr, '-subj', `/CN=${names[0] ?? 'caixa gate'}`]);
    fs.writeFileSync(
      ext,
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature',
        'extendedKeyUsage=serverAuth',
        `subjectAltName=${san}`,
        'subjectKeyIdentifier=hash',
        'authorityKeyIdentifier=keyid',
        '',
      ].join('\n'),
    );
    await openssl([
      'x509', '-req', '-sha256', '-in', csr, '-out', leaf, '-CA', path.join(dir, TLS_FILES.caCert), '-CAkey', caKey,
      '-set_serial', serial(), '-days', String(validDays), '-extfile', ext,
    ]); // prettier-ignore
    const chain = path.join(scratch, TLS_FILES.cert);
    fs.writeFileSync(chain, Buffer.concat([fs.readFileSync(leaf), fs.readFileSync(path.join(dir, TLS_FILES.caCert))]), {
      mode: 0o644,
    });
    const issued = new crypto.X509Certificate(fs.readFileSync(leaf));
    fs.renameSync(key, path.join(dir, TLS_FILES.key));
    fs.renameSync(chain, path.join(dir, TLS_FILES.cert));
    return issued;
  });
}
