import path from 'node:path';
import type { Config } from '../config.js';
import { issueCert, makeCa, parseSubnet, subnetText, TLS_FILES, TlsSetupError } from '../tls/site-ca.js';
import { configOf, EXIT, parse, printHelp, say, UsageError, type CliIo } from './common.js';

/** Where `gate tls` and the box look: --dir, else GATE_TLS_DIR, else a `tls` folder next to the database. */
export const tlsDirOf = (flag: string | undefined, config: Config) =>
  path.resolve(flag ?? config.siteTls?.dir ?? path.join(config.dataDir, 'tls'));

/**
 * `gate tls ca` makes the site's name-constrained CA; `gate tls issue` the box's certificate signed by it
 * (docs/handheld.md). Run as the service user (`sudo -u gate gate tls ...`): the keys are created readable by whoever
 * runs the command, and only by them.
 */
export async function tlsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'ca') return await caCommand(rest, io);
    if (sub === 'issue') return await issueCommand(rest, io);
  } catch (error) {
    if (!(error instanceof TlsSetupError)) throw error;
    say(io.stderr, `gate tls ${sub}: ${error.message}`);
    return EXIT.failure;
  }
  throw new UsageError(`subcomando desconhecido: gate tls ${sub ?? ''} (use ca ou issue)`.trim());
}

async function caCommand(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    {
      dir: { type: 'string' },
      rede: { type: 'string', multiple: true },
      nome: { type: 'string' },
      forcar: { type: 'boolean' },
    },
    { min: 0, max: 0, names: '' },
  );
  if (help) return printHelp(io, 'tls ca');
  const redes = (values.rede as string[] | undefined) ?? [];
  const subnets = redes
    .flatMap((r) => r.split(','))
    .map((r) => {
      try {
        return parseSubnet(r);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
    });
  const dir = tlsDirOf(values.dir, configOf(io));
  const ca = await makeCa({ dir, subnets, name: values.nome?.trim() || 'Parque', force: values.forcar === true });
  say(io.stdout, path.join(dir, TLS_FILES.caCert));
  say(
    io.stderr,
    `CA criada para ${ca.subnets.map(subnetText).join(', ')} e nomes .lan, válida até ${ca.notAfter.toISOString().slice(0, 10)}`,
  );
  say(io.stderr, `impressão digital SHA-256: ${ca.fingerprint}`);
  say(
    io.stderr,
    `a chave ${path.join(dir, TLS_FILES.caKey)} é legível só por quem rodou o comando; próximo passo: gate tls issue`,
  );
  return EXIT.ok;
}

async function issueCommand(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    { dir: { type: 'string' }, ip: { type: 'string', multiple: true }, dns: { type: 'string', multiple: true } },
    { min: 0, max: 0, names: '' },
  );
  if (help) return printHelp(io, 'tls issue');
  const list = (v: unknown) => ((v as string[] | undefined) ?? []).flatMap((s) => s.split(',')).map((s) => s.trim());
  const dir = tlsDirOf(values.dir, configOf(io));
  const cert = await issueCert({ dir, ips: list(values.ip), names: list(values.dns).map((n) => n.toLowerCase()) });
  say(io.stdout, path.join(dir, TLS_FILES.cert));
  say(
    io.stderr,
    `certificado para ${cert.subjectAltName ?? ''}, válido até ${new Date(cert.validTo).toISOString().slice(0, 10)}`,
  );
  say(
    io.stderr,
    'uma caixa em funcionamento com GATE_TLS_DIR neste diretório passa a usá-lo em até um minuto, sem reiniciar',
  );
  return EXIT.ok;
}
