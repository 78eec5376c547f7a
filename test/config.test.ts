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
});
