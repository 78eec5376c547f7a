// What the consoles' live streams carry (GET /api/console/eventos): scans from every door, lane
// status, alarms, the sync state and the site, per tenant. Supervisor-only kinds go to supervisors only (the
// site's mode, `modo_site`, goes to everyone: it is the local-mode banner).

export type FeedKind = 'leitura' | 'pistas' | 'alarme' | 'alarme_reconhecido' | 'sync' | 'site' | 'modo_site';
export const SUPERVISOR_KINDS: ReadonlySet<FeedKind> = new Set([
  'pistas',
  'alarme',
  'alarme_reconhecido',
  'sync',
  'site',
]);

export interface FeedMessage {
  tenantId: number;
  kind: FeedKind;
  /** Read only when the message is sent. */
  readonly data: unknown;
  /** A scan's order number. */
  pedido?: string | null;
}

const texts = new WeakMap<object, string>();

/** An event as a server-sent event's text, serialised once for all the consoles it goes to. */
export function eventText(m: { readonly kind: string; readonly data: unknown }): string {
  let text = texts.get(m);
  if (text === undefined) {
    text = `event: ${m.kind}\ndata: ${JSON.stringify(m.data)}\n\n`;
    texts.set(m, text);
  }
  return text;
}

export type FeedListener = (message: FeedMessage) => void;

export interface Feed {
  publish(message: FeedMessage): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: FeedListener): () => void;
  readonly listeners: number;
}

export function createFeed(): Feed {
  const listeners = new Set<FeedListener>();
  return {
    publish(message) {
      for (const listener of listeners) listener(message);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get listeners() {
      return listeners.size;
    },
  };
}
