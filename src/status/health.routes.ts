import type { RouteRegistrar } from '../app.js';
import type { Clock } from '../clock.js';
import { describeClock } from '../clock-check.js';
import { migrationState, type Db } from '../db/open.js';
import { CANNOT_RECORD } from '../db/storage.js';
import { healthDocs, liveDocs, readyDocs } from './status.docs.js';
import { AppError } from '../http/errors.js';
import { VERSION } from '../version.js';
import { cloudKeyAlarm, LOCAL_MODE_TITLE, LOCAL_REASON_TEXT } from '../site/site.view.js';
import type { BoxStatus } from './box-status.js';
import type { HealthAnswer, LiveAnswer, ReadyAnswer, ReadyPart } from './status.answers.js';

/** Events waiting this long while the cloud answers: the sync is stuck, not merely offline. */
export const SYNC_STUCK_MS = 60 * 60_000;

interface HealthDeps {
  db: Db;
  clock: Clock;
  status: BoxStatus;
}

type Part = ReadyPart;

/**
 * Parts that are reported without making the box unready: a wrong clock is no reason to stop the gates
 * (docs/operations.md, "Clock"), nor is the site in local mode (a box deciding alone still lets people in), nor a
 * certificate near its end (the HTTPS still works until then); two boxes pulling with one cloud key is
 * (docs/site.md).
 */
const advisory = (name: string, p: Part) =>
  name === 'relogio' || name === 'tls' || (name === 'site' && !Array.isArray(p.chave_nuvem_repetida));

const databasePart = ({ db, status }: HealthDeps): Part => {
  try {
    db.statement('select 1').get();
  } catch {
    return { ok: false, motivo: 'banco de dados indisponível' };
  }
  const failing = status.storage();
  return failing ? { ok: false, motivo: `${CANNOT_RECORD} (${failing})` } : { ok: true };
};

const migrationsPart = ({ db }: HealthDeps): Part => {
  const { pending } = migrationState(db.sqlite);
  return pending.length === 0
    ? { ok: true }
    : { ok: false, motivo: `migrações pendentes: ${pending.join(', ')} (gate migrate)` };
};

const lanesPart = ({ status }: HealthDeps): Part | null => {
  const lanes = status.lanes();
  if (!lanes) return null;
  const down = lanes.lanes.flatMap((l) => [
    ...(l.relay.online ? [] : [`${l.name}: relé ${l.relay.path} offline`]),
    ...l.scanners.filter((s) => !s.up).map((s) => `${l.name}: leitor ${s.path} desconectado`),
  ]);
  return down.length === 0 ? { ok: true } : { ok: false, motivo: down.join('; ') };
};

const syncPart = ({ clock, status }: HealthDeps): Part | null => {
  const s = status.syncTenantId === undefined ? null : status.sync();
  if (!s) return null;
  const oldest = s.oldestWaitingAt ? Date.parse(s.oldestWaitingAt) : null;
  // Offline is normal for this box (it works without the cloud); stuck is the cloud answering and events not
  // leaving.
  if (s.online === true && oldest !== null && clock.now().getTime() - oldest > SYNC_STUCK_MS)
    return { ok: false, motivo: `eventos aguardando envio desde ${s.oldestWaitingAt} com a nuvem respondendo` };
  return {
    ok: true,
    ...(s.online === false ? { motivo: 'nuvem inacessível: a caixa segue registrando e envia depois' } : {}),
  };
};

const clockPart = ({ status }: HealthDeps): Part | null => {
  const s = status.clock();
  if (!s) return null;
  if (!s.suspeito) return { ok: true };
  const times =
    s.motivo === 'diferenca_da_nuvem'
      ? { diferenca_segundos: s.diferenca_nuvem_segundos }
      : { agora: s.agora, ultimo_evento_em: s.ultimo_evento_em };
  return { ok: false, motivo: s.motivo!, ...times, mensagem: describeClock(s) };
};

const sitePart = ({ status }: HealthDeps): Part | null => {
  const s = status.site();
  if (!s) return null;
  const local =
    s.modo === 'local'
      ? `${LOCAL_MODE_TITLE} (${s.motivo ? LOCAL_REASON_TEXT[s.motivo] : 'sem o hub'}) desde ${s.desde ?? '?'}; ${s.pendentes} movimento(s) a publicar`
      : null;
  const alarm = cloudKeyAlarm(s);
  if (alarm) return { ok: false, motivo: alarm, chave_nuvem_repetida: s.chave_nuvem_repetida, modo: s.modo };
  return local ? { ok: false, motivo: local, modo: s.modo } : { ok: true, modo: s.modo };
};

/** Under this, the box's own renewal (30 days before) has been failing for two weeks: someone must look. */
const TLS_LATE_MS = 14 * 86_400_000;

/** The site CA's fingerprint (what the handhelds installed) and the box certificate's end (docs/handheld.md). */
const tlsPart = ({ status, clock }: HealthDeps): Part | null => {
  const t = status.tls();
  if (!t) return null;
  const fields = { ca_sha256: t.caFingerprint, certificado_expira_em: t.certExpiresAt };
  return Date.parse(t.certExpiresAt) - clock.now().getTime() < TLS_LATE_MS
    ? { ok: false, motivo: `certificado da caixa vence em ${t.certExpiresAt} e não foi renovado`, ...fields }
    : { ok: true, ...fields };
};

/** Each part of readiness that applies to this box, with its reason when it fails. */
const readyParts = (deps: HealthDeps): Record<string, Part> =>
  Object.fromEntries(
    Object.entries({
      banco: databasePart(deps),
      migracoes: migrationsPart(deps),
      pistas: lanesPart(deps),
      sincronizacao: syncPart(deps),
      relogio: clockPart(deps),
      site: sitePart(deps),
      tls: tlsPart(deps),
    }).filter(([, p]) => p !== null),
  ) as Record<string, Part>;

/**
 * GET /health (as always: the database readable and writable), /health/live (the process answers)
 * and /health/ready (database writable, migrations current, every lane's devices online, sync not
 * stuck, no other box of the site on this box's cloud key; each part with its reason; the clock and the site's
 * local mode reported, never failing it). No key needed, no data exposed.
 */
export const healthRoutes =
  (deps: HealthDeps): RouteRegistrar =>
  (app) => {
    const { db, clock, status } = deps;
    const tags = ['box'];

    // /health answers as it always has (compatibility): readable, then writable.
    app.get(
      '/health',
      { schema: { tags, summary: 'Banco de dados legível e gravável', docs: healthDocs } },
      async (): Promise<HealthAnswer> => {
        try {
          db.statement('select 1').get();
        } catch {
          throw new AppError('SERVICE_UNAVAILABLE', { banco: 'indisponivel' }, 'Banco de dados indisponível.');
        }
        const failing = status.storage();
        if (failing)
          throw new AppError('SERVICE_UNAVAILABLE', { banco: 'sem_gravacao', motivo: failing }, CANNOT_RECORD);
        return {
          success: true,
          data: { status: 'ok', banco: 'ok', versao: VERSION, agora: clock.nowIso(), fuso_horario: clock.timeZone },
        };
      },
    );

    app.get(
      '/health/live',
      { schema: { tags, summary: 'O processo responde', docs: liveDocs } },
      async (): Promise<LiveAnswer> => ({
        success: true,
        data: { status: 'ok', versao: VERSION },
      }),
    );

    app.get(
      '/health/ready',
      {
        schema: {
          tags,
          summary: 'Pronta para a portaria: banco gravável, migrações em dia, pistas online, sincronização andando',
          docs: readyDocs,
        },
      },
      async (): Promise<ReadyAnswer> => {
        const parts = readyParts(deps);
        const failing = Object.entries(parts).filter(([name, p]) => !p.ok && !advisory(name, p));
        if (failing.length > 0)
          throw new AppError(
            'SERVICE_UNAVAILABLE',
            { partes: parts },
            `Caixa não está pronta: ${failing.map(([name, p]) => `${name}: ${p.motivo}`).join('; ')}`,
          );
        const warnings = Object.entries(parts)
          .filter(([, p]) => !p.ok)
          .map(([name, p]) => `${name}: ${typeof p.mensagem === 'string' ? p.mensagem : p.motivo}`);
        return {
          success: true,
          data: { status: 'ok', versao: VERSION, partes: parts, ...(warnings.length > 0 ? { avisos: warnings } : {}) },
        };
      },
    );
  };
