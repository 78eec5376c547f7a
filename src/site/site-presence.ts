import { z } from 'zod';
import type { SiteBox } from './site.answers.js';
import type { Origin } from './site-messages.js';

// The boxes' presence (docs/site.md, "What the box shows"): every few seconds each box announces, on plain NATS
// (nothing stored), its version, how far it applied the stream, its backlog and a fingerprint of its cloud key.
// Two boxes announcing the same fingerprint pull with one key: the cloud's sync marks are per key, so each would
// get only part of the pages — an alarm, and both boxes are not ready.

export const PRESENCE_EVERY_MS = 3000;
/** A box not heard for this long is not counted as sharing a key any more (it may have been given its own). */
const FRESH_MS = 30_000;

const presenceSchema = z.strictObject({
  box: z.string().max(32),
  versao: z.string().max(40),
  aplicada: z.number().int().nonnegative(),
  atraso: z.number().int().nonnegative(),
  pendentes: z.number().int().nonnegative(),
  chave: z.string().max(64).nullable(),
});

type Presence = z.output<typeof presenceSchema>;

export function createPresence({
  origin,
  version,
  cloudKey,
  now,
}: {
  origin: Origin;
  version: string;
  cloudKey: string | undefined;
  now: () => number;
}) {
  const heard = new Map<string, Presence & { at: number }>();
  return {
    announce(state: { applied: number; lag: number; backlog: number }): Uint8Array {
      const p: Presence = {
        box: origin.box,
        versao: version,
        aplicada: state.applied,
        atraso: state.lag,
        pendentes: state.backlog,
        chave: cloudKey ?? null,
      };
      heard.set(origin.box, { ...p, at: now() });
      return new TextEncoder().encode(JSON.stringify(p));
    },
    heard(subject: string, data: Uint8Array): void {
      if (data.byteLength > 1024) return;
      let parsed;
      try {
        parsed = presenceSchema.safeParse(JSON.parse(new TextDecoder().decode(data)));
      } catch {
        return;
      }
      if (!parsed.success) return;
      const p = parsed.data;
      // A box speaks for itself only, and only a box of this site.
      if (!origin.boxes.includes(p.box) || p.box === origin.box || !subject.endsWith(`.${p.box}`)) return;
      heard.set(p.box, { ...p, at: now() });
    },
    boxes(): SiteBox[] {
      return origin.boxes.map((caixa) => {
        const p = heard.get(caixa);
        return {
          caixa,
          esta_caixa: caixa === origin.box,
          visto_em: p ? new Date(p.at).toISOString() : null,
          versao: p?.versao ?? null,
          sequencia_aplicada: p?.aplicada ?? null,
          atraso: p?.atraso ?? null,
          pendentes: p?.pendentes ?? null,
        };
      });
    },
    /** The other boxes announcing this box's cloud key. */
    sharingKey(): string[] {
      if (!cloudKey) return [];
      return [...heard.values()]
        .filter((p) => p.box !== origin.box && p.chave === cloudKey && now() - p.at < FRESH_MS)
        .map((p) => p.box)
        .sort();
    },
  };
}
