import fs from 'node:fs';
import path from 'node:path';
import { errors } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refusalOf } from '../../src/site/site-hub.js';
import { startBoxes, until, type SiteBox, type SiteBoxes } from '../support/site-boxes.js';
import { startHub, type Hub } from '../support/site-hub.js';

// A box whose password the hub refuses (docs/site.md, "O que a caixa mostra"): a real `gate serve` on Debian's
// nats-server, first with a wrong password file, then with the right one while the hub's configuration changes
// under it. It says so in GET /api/local/site and once in its log, never with the password, and comes back.

const WARNING = 'site: o hub recusou o usuário ou a senha desta caixa (GATE_SITE_NATS_PASSWORD_FILE)';
const WRONG = 'senha-errada-copiada-de-outra-caixa';

let hub: Hub;
let site: SiteBoxes;
let box: SiteBox;
let passwordFile: string;

beforeAll(async () => {
  hub = await startHub({ boxes: ['norte'] });
  site = await startBoxes({
    names: ['norte'],
    hub,
    orders: 2,
    env: (_name, dataDir) => {
      passwordFile = path.join(dataDir, 'site-senha');
      fs.writeFileSync(passwordFile, `${WRONG}\n`, { mode: 0o600 });
      return { GATE_SITE_NATS_PASSWORD_FILE: passwordFile };
    },
  });
  box = site.box('norte');
}, 120_000);
afterAll(async () => {
  await site?.close();
  await hub?.close();
});

const refusedAtHub = () => hub.logs().match(/authentication error - User "gate-norte"/g)?.length ?? 0;
const warnings = () => box.logLines().filter((l) => l.msg === WARNING);

/** The hub's configuration, where each box's password is (test/support/site-hub.ts writes it beside the store). */
const hubConf = () => path.join(path.dirname(hub.storeDir), 'nats-server.conf');

it('the NATS client says a refused password apart from a hub away or a slow link', async () => {
  const refused = await hub.connect('norte', { pass: WRONG, reconnect: false }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(refused).toBeInstanceOf(errors.AuthorizationError);
  expect(refusalOf(refused)).toEqual({ motivo: 'credenciais_recusadas' });
  expect(refusalOf(new errors.AuthorizationError('Authentication Timeout'))).toBeUndefined();
  expect(refusalOf(new errors.ConnectionError('connection refused'))).toBeUndefined();
});

it('a wrong password file: local mode with motivo credenciais_recusadas, one warning across the retries', async () => {
  await until('the hub refused the box three times', () => refusedAtHub() >= 3);
  expect(await box.siteView()).toMatchObject({
    modo: 'local',
    motivo: 'credenciais_recusadas',
    hub: { conectado: false },
  });
  expect(warnings()).toHaveLength(1);
  expect(warnings()[0]).toMatchObject({ level: 40 });
  // Readiness words it as the console does: local mode is reported, not a failure.
  const ready = await box.get('/health/ready');
  expect(ready.status).toBe(200);
  expect(JSON.stringify(ready.body)).toContain('o hub recusou o usuário ou a senha desta caixa');
  expect(box.logs()).not.toContain(WRONG);
});

it('the password file fixed and the box restarted: back on the site', async () => {
  fs.writeFileSync(passwordFile, `${hub.password('norte')}\n`);
  await box.stop();
  await box.start();
  await box.untilMode('site');
  expect(await box.siteView()).toMatchObject({ motivo: null, hub: { conectado: true } });
  expect(box.logs()).not.toContain(hub.password('norte'));
});

it('the hub given another password for a connected box: it says so once, and returns when the hub is put back', async () => {
  const conf = fs.readFileSync(hubConf(), 'utf8');
  const right = JSON.stringify(hub.password('norte'));
  expect(conf).toContain(right);
  const before = warnings().length;
  fs.writeFileSync(hubConf(), conf.replace(right, JSON.stringify('outra-senha-gerada-no-hub')));
  try {
    await hub.restart();
    await until('the hub refused the box three times', () => refusedAtHub() >= 3);
    expect(await box.siteView()).toMatchObject({ modo: 'local', motivo: 'credenciais_recusadas' });
    expect(warnings()).toHaveLength(before + 1);
  } finally {
    fs.writeFileSync(hubConf(), conf);
  }
  // The client keeps trying after refusals: no restart of the box is needed once the hub takes its password again.
  await hub.restart();
  await box.untilMode('site');
  expect(box.logs()).not.toContain(hub.password('norte'));
});
