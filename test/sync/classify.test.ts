import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { backoffDelay } from '../../src/sync/backoff.js';
import { classify, CLOCK_SKEW_MS, isOwnEarlierAttempt } from '../../src/sync/push.classify.js';

const refusal = (code: string, at: string | null = null) => ({
  code: 'Q',
  ok: false,
  status: 409,
  error: { code, message: 'm' },
  at,
});
const first = '2026-11-21T13:00:00.000Z';

describe('classifying what the cloud said about one event', () => {
  it('accepted; too late; cancelled in the cloud; other', () => {
    const a = { action: 'checkin' as const, priorAttempts: 0, firstSentAt: first };
    expect(classify(a, { code: 'Q', ok: true, status: 200, at: first }).resultado).toBe('aceito');
    for (const code of ['TICKET_EXPIRED', 'TICKET_NOT_VALID_YET'])
      expect(classify(a, refusal(code)).resultado).toBe('fora_do_prazo');
    expect(classify({ ...a, action: 'estorno' }, refusal('ESTORNO_NAO_PERMITIDO')).resultado).toBe('fora_do_prazo');
    for (const code of ['TICKET_CANCELLED', 'ORDER_NOT_PAID'])
      expect(classify(a, refusal(code)).resultado).toBe('cancelado_na_nuvem');
    for (const code of ['TICKET_NOT_FOUND', 'TENANT_MISMATCH', 'SEM_CHECKIN'])
      expect(classify(a, refusal(code))).toMatchObject({ resultado: 'outro', code });
    expect(classify(a, { code: 'Q', ok: false, status: 418, at: null })).toMatchObject({
      resultado: 'outro',
      code: 'HTTP_418',
    });
  });

  it('already used: a double entry elsewhere, unless an earlier attempt of ours reached the cloud at or after our first send', () => {
    const before = '2026-11-21T12:59:00.000Z';
    const after = '2026-11-21T13:00:00.500Z';
    expect(
      classify({ action: 'checkin', priorAttempts: 0, firstSentAt: first }, refusal('TICKET_ALREADY_USED', after)),
    ).toMatchObject({ resultado: 'ja_utilizado_na_nuvem', at: after });
    expect(
      classify({ action: 'checkin', priorAttempts: 1, firstSentAt: first }, refusal('TICKET_ALREADY_USED', before)),
    ).toMatchObject({ resultado: 'ja_utilizado_na_nuvem', at: before });
    expect(
      classify({ action: 'checkin', priorAttempts: 1, firstSentAt: first }, refusal('TICKET_ALREADY_USED', after)),
    ).toMatchObject({ resultado: 'aceito', code: 'TICKET_ALREADY_USED' });
    expect(
      classify({ action: 'checkin', priorAttempts: 2, firstSentAt: first }, refusal('TICKET_ALREADY_USED', null))
        .resultado,
    ).toBe('ja_utilizado_na_nuvem');
    // Earlier attempts that all failed before connecting (no first send recorded) reached nobody.
    expect(
      classify({ action: 'checkin', priorAttempts: 3, firstSentAt: null }, refusal('TICKET_ALREADY_USED', after))
        .resultado,
    ).toBe('ja_utilizado_na_nuvem');
    // A cloud clock slightly behind the box's is tolerated.
    const skewed = new Date(Date.parse(first) - CLOCK_SKEW_MS + 1).toISOString();
    expect(isOwnEarlierAttempt({ action: 'checkin', priorAttempts: 1, firstSentAt: first }, skewed)).toBe(true);
    expect(
      classify({ action: 'estorno', priorAttempts: 1, firstSentAt: first }, refusal('JA_ESTORNADO', after)).resultado,
    ).toBe('aceito');
    expect(
      classify({ action: 'estorno', priorAttempts: 1, firstSentAt: first }, refusal('JA_ESTORNADO', before)).resultado,
    ).toBe('outro');
  });
});

describe('backoff', () => {
  it('doubles up to the cap, with jitter between half and all of it', () => {
    const opts = { baseMs: 1000, maxMs: 60_000 };
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, opts, () => 1))).toEqual([1000, 2000, 4000, 8000]);
    expect([1, 2, 3].map((n) => backoffDelay(n, opts, () => 0))).toEqual([500, 1000, 2000]);
    expect(backoffDelay(40, opts, () => 1)).toBe(60_000);
    expect(backoffDelay(40, opts, () => 0)).toBe(30_000);
  });
});

describe('cloud configuration', () => {
  const cloud = {
    GATE_CLOUD_URL: 'https://nuvem.example.com',
    GATE_CLOUD_API_KEY: 'chave-api',
    GATE_CLOUD_INTEGRATION_KEY: 'chave-int',
    GATE_TENANT: 'parque',
  };

  it('is absent by default: the box runs stand-alone', () => {
    expect(loadConfig({}).cloud).toBeUndefined();
  });

  it('reads the cloud, its keys and the schedules', () => {
    const c = loadConfig({ ...cloud, GATE_SYNC_PULL_SECONDS: '2', GATE_SYNC_DAYS_AHEAD: '5' }).cloud;
    expect(c).toMatchObject({
      url: 'https://nuvem.example.com',
      apiKey: 'chave-api',
      integrationKey: 'chave-int',
      tenant: 'parque',
      pullSeconds: 2,
      pushSeconds: 1,
      daysAhead: 5,
      timeoutMs: 15_000,
      refreshCron: '*/15 * * * *',
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('says clearly what is missing or wrong, never echoing a key', () => {
    const error = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(error({ GATE_CLOUD_URL: 'https://nuvem.example.com', GATE_CLOUD_API_KEY: 'segredo-123' })).toMatch(
      /GATE_CLOUD_INTEGRATION_KEY: obrigatória[\s\S]*GATE_TENANT: obrigatório com GATE_CLOUD_URL/,
    );
    expect(error({ GATE_CLOUD_API_KEY: 'segredo-123' })).toMatch(/GATE_CLOUD_API_KEY: definida sem GATE_CLOUD_URL/);
    expect(error({ ...cloud, GATE_CLOUD_URL: 'ftp://x' })).toMatch(/GATE_CLOUD_URL/);
    expect(error({ ...cloud, GATE_SYNC_REFRESH_CRON: 'toda hora' })).toMatch(
      /GATE_SYNC_REFRESH_CRON: expressão cron inválida/,
    );
    expect(error({ GATE_CLOUD_URL: 'https://nuvem.example.com', GATE_CLOUD_API_KEY: 'segredo-123' })).not.toMatch(
      /segredo-123/,
    );
  });
});
