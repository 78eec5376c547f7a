import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { offlineLane } from '../support/lanes.js';
import { createTestBox, type TestBox } from '../support/box.js';
import { makeOrder } from '../support/fixtures.js';
import { checkin } from '../support/http.js';

// What Prometheus' own checker says of /metrics (defect 6.6): no gauge named like a counter, every name and
// help well formed. promtool comes with Debian's `prometheus` package.

let box: TestBox | undefined;
afterEach(async () => box?.close());

/** Runs `promtool check metrics` on a scrape: its exit code and what it printed. */
function promtool(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

it('promtool check metrics passes on the real /metrics of a box with a lane and scans', async () => {
  box = await createTestBox({
    lanes: offlineLane('promtool'),
  });
  box.importOrders([makeOrder({ prefix: 'PT', dataUso: '2026-11-21', people: 1 })]);
  expect((await checkin(box, { qr_code: 'PT-1' })).status).toBe(200);
  await box.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = box.app.server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toMatch(/^gate_scans_total\{/m);
  expect(text).toMatch(/^gate_nodejs_active_handles\{type="\w+"\} \d+$/m);
  expect(await promtool(text)).toEqual({ code: 0, output: '' });
});
