import { Document, Spectral, type ISpectralDiagnostic, type RulesetDefinition } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestBox, type TestBox } from '../support/box.js';
import { HANDHELDS } from '../support/handheld.js';

// The whole OpenAPI document the box serves at /docs/json, linted with Spectral's `spectral:oas` ruleset (what
// `spectral lint` runs by default on an OpenAPI file): an example outside its schema, a broken $ref or a
// duplicated operationId is an error there, and a client generated from /docs would trip on it.

let box: TestBox;
let results: ISpectralDiagnostic[];

/** One line per finding: rule, where, what. */
const lines = (found: ISpectralDiagnostic[]) => found.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);

beforeAll(async () => {
  // Handhelds on: every route the box can serve is in the document.
  box = await createTestBox({ handheld: HANDHELDS });
  const served = await box.app.inject({ method: 'GET', url: '/docs/json' });
  expect(served.statusCode).toBe(200);
  const spectral = new Spectral();
  // `spectral:oas` as the CLI's `extends: spectral:oas` takes it; its exported type lacks `extends` (spectral-rulesets
  // 1.23's declarations), though the ruleset is complete.
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  results = await spectral.run(new Document(served.body, Json, '/docs/json'));
});
afterAll(() => box.close());

it('spectral:oas finds no error in the served OpenAPI document', () => {
  expect(lines(results.filter((r) => r.severity === 0))).toEqual([]);
});

/**
 * Warnings the document has today, and why they are kept: neither makes a client misread an answer. Any other
 * warning, or any new one, fails.
 */
const KNOWN_WARNINGS: Record<string, string> = {
  'oas3-api-servers': 'each box is served at whatever address the park gives it; /docs is read from the box itself',
  'info-contact': 'the appliance has no public contact to publish',
};

it('spectral:oas warns only of what is known, listed with why', () => {
  const warnings = results.filter((r) => r.severity === 1);
  expect(lines(warnings.filter((r) => !(String(r.code) in KNOWN_WARNINGS)))).toEqual([]);
});
