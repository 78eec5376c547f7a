import { expect, it } from 'vitest';
import { cloudKeyPrint } from '../../src/site/site.start.js';
import type { SyncSpec } from '../../src/sync/sync.start.js';
import { UNREACHABLE_CLOUD } from '../support/box.js';

// The fingerprint a box announces of its cloud key (docs/site.md, "The cloud"): of the key the cloud knows the box
// by, whatever address the box reaches the cloud at.

const KEY = 'gk_live_3f9a1c0de5b7a2c4e6f8a0b2c4d6e8f0';
/** A box's cloud settings (GATE_CLOUD_URL, GATE_CLOUD_API_KEY). */
const cloud = (url: string, apiKey = KEY): SyncSpec => ({ ...UNREACHABLE_CLOUD, url, apiKey });

it('is the same for one key reached by an IP, a name or a trailing slash', () => {
  const prints = ['http://10.0.0.5:8080', 'http://cloud.parque:8080/', 'https://nuvem.example.com/api/'].map((url) =>
    cloudKeyPrint(cloud(url)),
  );
  expect(new Set(prints).size).toBe(1);
  expect(prints[0]).toMatch(/^[0-9a-f]{16}$/);
});

it('differs for another key on the same cloud; none without a cloud', () => {
  const print = cloudKeyPrint(cloud('http://10.0.0.5:8080'))!;
  expect(cloudKeyPrint(cloud('http://10.0.0.5:8080', `${KEY}x`))).not.toBe(print);
  expect(cloudKeyPrint(undefined)).toBeUndefined();
});
