import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../firmware-bridge/', import.meta.url));

describe('C code of the firmware bridge', () => {
  it('passes every shared vector and the fake-HAL state machine checks (make -C firmware-bridge test)', () => {
    const run = spawnSync('make', ['-C', dir, 'test'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.error).toBeUndefined();
    expect(run.stderr).not.toMatch(/FAIL/);
    expect(run.status, run.stdout + run.stderr).toBe(0);

    const vectors = JSON.parse(readFileSync(`${dir}vectors.json`, 'utf8')) as Record<string, unknown[]>;
    const total = ['crc', 'cobs', 'valid', 'invalid', 'refused'].reduce((n, k) => n + (vectors[k]?.length ?? 0), 0);
    expect(run.stdout).toContain(`C codec: ${total} vectors checked, 0 failed`);
    // The state machine on a fake HAL with a hand-driven clock (exact timings, millis wrap).
    expect(run.stdout).toMatch(/firmware: [1-9]\d* checks, 0 failed/);
  });
});
