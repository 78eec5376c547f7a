import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// GATE_HANDHELD* (docs/handheld.md): off by default, and never on without HTTPS.

describe('handheld configuration', () => {
  it('is off by default', () => {
    expect(loadConfig({}).handheld).toBeUndefined();
  });

  it('refuses to turn handhelds on without HTTPS, naming what to configure', () => {
    expect(() => loadConfig({ GATE_HANDHELD: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ GATE_HANDHELD: 'true' })).toThrow(/GATE_HANDHELD: os handhelds precisam de HTTPS/);
  });

  it('takes the timeout and the names flag with HTTPS configured', () => {
    const config = loadConfig({
      GATE_HANDHELD: 'true',
      GATE_TLS_CERT: '/etc/gate/tls/box.pem',
      GATE_TLS_KEY: '/etc/gate/tls/box.key',
      GATE_HANDHELD_TIMEOUT_MS: '1200',
      GATE_HANDHELD_NOMES: 'true',
    });
    expect(config.handheld).toEqual({ timeoutMs: 1200, names: true });
    expect(loadConfig({ GATE_HANDHELD: 'true', GATE_TLS_CERT: '/a', GATE_TLS_KEY: '/b' }).handheld).toEqual({
      timeoutMs: 800,
      names: false,
    });
    // The site CA's folder (gate tls ca / issue) is HTTPS too.
    expect(loadConfig({ GATE_HANDHELD: 'true', GATE_TLS_DIR: '/var/lib/gate/tls' }).handheld).toEqual({
      timeoutMs: 800,
      names: false,
    });
  });

  it('says what is wrong with a bad value', () => {
    expect(() => loadConfig({ GATE_HANDHELD_TIMEOUT_MS: '5' })).toThrow(/GATE_HANDHELD_TIMEOUT_MS: no mínimo 100 ms/);
    expect(() => loadConfig({ GATE_HANDHELD_NOMES: 'talvez' })).toThrow(/GATE_HANDHELD_NOMES: use true ou false/);
  });
});
