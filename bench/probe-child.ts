import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';

// Forked by sync.bench.ts and heavy.bench.ts: `<url> <api key> <qr pattern> <first n> <every ms>`
// sends one single-QR check-in every <every ms> and times it, as a turnstile on the LAN would, from
// its own process so the box's event loop is measured, not the load generator's. The pattern's run of
// '#' is n (n = first, first + 1, ...), zero-padded to the run's length: `P#-1`, `QB########`. Over IPC: {type:'start'}
// starts a phase, {type:'stop'} ends it and answers {type:'times', times: number[], starts: number[]} (ms per
// check-in; when each was sent, ms since the epoch, to keep only those inside a window the parent saw).

const [url, key, pattern, first, everyMs] = process.argv.slice(2) as [string, string, string, string, string];
const digits = /#+/.exec(pattern)![0];
const qrOf = (n: number) => pattern.replace(digits, String(n).padStart(digits.length, '0'));
const agent = new Agent({ connections: 1 });
let next = Number(first);
let running: Promise<number[]> | null = null;
let starts: number[] = [];
let stopping = false;

async function probe(): Promise<number[]> {
  const times: number[] = [];
  starts = [];
  while (!stopping) {
    const started = performance.now();
    starts.push(performance.timeOrigin + started);
    const res = await request(`${url}/api/v1/api-qrcode-checkin`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ qr_code: qrOf(next++), terminal: 'probe' }),
    });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`probe check-in answered ${res.statusCode}`);
    times.push(performance.now() - started);
    const wait = Number(everyMs) - (performance.now() - started);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return times;
}

process.on('message', async (m: { type: 'start' | 'stop' | 'exit' }) => {
  if (m.type === 'start') {
    stopping = false;
    running = probe();
  }
  if (m.type === 'stop' && running) {
    stopping = true;
    const times = await running;
    process.send!({ type: 'times', times, starts: starts.slice(0, times.length) });
    running = null;
  }
  if (m.type === 'exit') {
    await agent.close();
    process.disconnect();
  }
});
process.send!({ type: 'ready' });
