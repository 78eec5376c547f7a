import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration from the environment', () => {
  it('has defaults a fresh box can run with', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      timeZone: 'America/Sao_Paulo',
      tenant: undefined,
      logLevel: 'info',
    });
    expect(c.databaseFile).toBe(path.resolve('data', 'gate.db'));
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads every variable, ignoring empty ones', () => {
    const c = loadConfig({
      GATE_DATA_DIR: '/var/lib/gate',
      GATE_HOST: '127.0.0.1',
      GATE_PORT: '9090',
      GATE_TIMEZONE: 'America/Manaus',
      GATE_TENANT: 'parque-x',
      GATE_LOG_LEVEL: '',
    });
    expect(c).toMatchObject({
      databaseFile: '/var/lib/gate/gate.db',
      host: '127.0.0.1',
      port: 9090,
      timeZone: 'America/Manaus',
      tenant: 'parque-x',
      logLevel: 'info',
    });
  });

  it('stops with one clear line per bad variable', () => {
    let error: unknown;
    try {
      loadConfig({ GATE_PORT: 'http', GATE_TIMEZONE: 'Brasil/Recife', GATE_TENANT: 'Meu Parque' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/GATE_PORT/);
    expect(message).toMatch(/GATE_TIMEZONE: fuso horário IANA desconhecido/);
    expect(message).toMatch(/GATE_TENANT: use letras minúsculas/);
  });

  it('refuses a port that is blank or not a decimal number, a host that cannot be, a data dir that is a file', () => {
    const problem = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return null;
      } catch (e) {
        return (e as Error).message
          .split('\n')
          .slice(1)
          .map((l) => l.trim().split(':')[0]);
      }
    };
    for (const port of [' ', '0x50', '1e3', '80.5', '-1', '70000'])
      expect(problem({ GATE_PORT: port })).toEqual(['GATE_PORT']);
    for (const host of ['not_a_host!!', '999.1.1.1', 'a..b'])
      expect(problem({ GATE_HOST: host })).toEqual(['GATE_HOST']);
    expect(problem({ GATE_DATA_DIR: '/etc/passwd' })).toEqual(['GATE_DATA_DIR']);
    expect(problem({ GATE_PORT: '0', GATE_HOST: '::1' })).toBeNull();
    expect(loadConfig({ GATE_HOST: 'gate-box.local', GATE_DATA_DIR: '/tmp/nao-existe-ainda' })).toMatchObject({
      host: 'gate-box.local',
      port: 8080,
    });
  });

  it('reads the site, and names every problem with it without echoing a value', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-site-config-'));
    const secret = path.join(dir, 'senha');
    fs.writeFileSync(secret, 'segredo-da-caixa', { mode: 0o600 });
    try {
      expect(loadConfig({}).site).toBeUndefined();
      const site = loadConfig({
        GATE_SITE_NATS_URLS: 'nats://10.0.0.10:4222, nats://10.0.0.11:4222',
        GATE_SITE_BOX: 'sul',
        GATE_SITE_BOXES: 'norte,sul,leste',
        GATE_SITE_NATS_PASSWORD_FILE: secret,
      }).site;
      expect(site).toEqual({
        urls: ['nats://10.0.0.10:4222', 'nats://10.0.0.11:4222'],
        box: 'sul',
        boxes: ['norte', 'sul', 'leste'],
        user: 'gate-sul',
        passwordFile: secret,
        caFile: undefined,
        casTimeoutMs: 150,
        replicas: 1,
      });
      let error: unknown;
      try {
        loadConfig({
          GATE_SITE_NATS_URLS: 'nats://gate-sul:segredo@10.0.0.10:4222',
          GATE_SITE_BOX: 'Sul!',
          GATE_SITE_BOXES: 'norte,leste',
          GATE_SITE_NATS_PASSWORD_FILE: path.join(dir, 'nenhuma'),
          GATE_SITE_CAS_TIMEOUT_MS: '5',
        });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      for (const name of [
        'GATE_SITE_NATS_URLS',
        'GATE_SITE_BOX',
        'GATE_SITE_NATS_PASSWORD_FILE',
        'GATE_SITE_CAS_TIMEOUT_MS',
      ])
        expect(message).toContain(name);
      expect(message).not.toContain('segredo');
      expect(() => loadConfig({ GATE_SITE_BOX: 'sul' })).toThrow(/GATE_SITE_BOX: definida sem GATE_SITE_NATS_URLS/);
      expect(() =>
        loadConfig({
          GATE_SITE_NATS_URLS: 'nats://h:4222',
          GATE_SITE_BOX: 'sul',
          GATE_SITE_BOXES: 'norte',
          GATE_SITE_NATS_PASSWORD_FILE: secret,
        }),
      ).toThrow(/GATE_SITE_BOXES: deve incluir esta caixa \(sul\)/);
      expect(() =>
        loadConfig({
          GATE_SITE_NATS_URLS: 'tls://10.0.0.10:4222',
          GATE_SITE_BOX: 'sul',
          GATE_SITE_BOXES: 'norte,sul',
          GATE_SITE_NATS_PASSWORD_FILE: secret,
        }),
      ).toThrow(/GATE_SITE_NATS_CA: obrigatório com tls:\/\//);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
