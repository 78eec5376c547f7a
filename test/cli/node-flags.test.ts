import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOX_NODE_FLAGS, heapLimitMissing } from '../../src/node-flags.js';
import { tempDir, TZ } from '../support/box.js';
import { ensureBuilt, ROOT, serveGate } from '../support/gate-process.js';
import { gate } from './run.js';

// The box's heap limit (src/node-flags.ts) reaches it the two ways it is started: `npm start` and the systemd unit.
// Without it the box says so at start.

const children: ChildProcess[] = [];
beforeAll(() => ensureBuilt());
afterAll(() => children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL')));

const unit = fs.readFileSync(path.join(ROOT, 'systemd/gate.service'), 'utf8');
const unitNodeOptions = () => {
  const found = [...unit.matchAll(/^Environment=NODE_OPTIONS=(.*)$/gm)].map((m) => m[1]!.trim());
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('the box heap limit', () => {
  it('is in the unit NODE_OPTIONS and in npm start', () => {
    expect(unitNodeOptions()).toBe(BOX_NODE_FLAGS.join(' '));
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(pkg.scripts.start).toBe(`node ${BOX_NODE_FLAGS.join(' ')} bin/gate.js serve`);
  });

  it('counts as given on the command line or in NODE_OPTIONS, with either spelling', () => {
    expect(heapLimitMissing([], undefined)).toBe(true);
    expect(heapLimitMissing(['--enable-source-maps'], '--trace-warnings')).toBe(true);
    expect(heapLimitMissing(['--max-old-space-size=512'], undefined)).toBe(false);
    expect(heapLimitMissing([], '--trace-warnings --max_old_space_size=768')).toBe(false);
  });

  it('gate serve warns when started without it, and not with the unit NODE_OPTIONS', async () => {
    const dir = tempDir('gate-flags-');
    expect((await gate(dir, ['tenants', 'create', 'parque'])).code).toBe(0);
    const env = {
      PATH: process.env.PATH,
      GATE_DATA_DIR: dir,
      GATE_HOST: '127.0.0.1',
      GATE_PORT: '0',
      GATE_TIMEZONE: TZ,
    };
    const stderrOf = async (extra: NodeJS.ProcessEnv) => {
      const served = await serveGate({ ...env, ...extra }, ROOT, children);
      let text = '';
      served.child.stderr!.on('data', (c) => (text += c));
      const exit = new Promise((resolve) => served.child.once('exit', resolve));
      served.child.kill('SIGTERM');
      await exit;
      return text;
    };
    expect(await stderrOf({})).toContain(`NODE_OPTIONS=${BOX_NODE_FLAGS.join(' ')}`);
    expect(await stderrOf({ NODE_OPTIONS: unitNodeOptions() })).not.toContain('limite de heap');
  });
});
