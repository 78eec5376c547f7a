import { useState } from 'preact/hooks';
import { api, errorMessage } from '../api';
import type { Leitura, PedidoConsole } from '../../console.answers';

export interface Feedback {
  ok: boolean;
  text: string;
}

/** What an order action is about: a person's QR, the group QR, an additional or the whole order. */
export type Target = { qr_code: string } | { numero_pedido: string };

/** Check-ins and reversals from the order screen, each answer shown next to what it concerns. */
export function useOrderActions(onPedido: (p: PedidoConsole | null) => void) {
  const [busy, setBusy] = useState<string | null>(null);
  const [feedback, setFeedback] = useState<Record<string, Feedback>>({});

  const say = (key: string, f: Feedback | null) =>
    setFeedback((prev) => {
      const next = { ...prev };
      if (f) next[key] = f;
      else delete next[key];
      return next;
    });

  async function run<T extends { pedido: PedidoConsole | null }>(
    key: string,
    path: string,
    body: unknown,
    text: (d: T) => string,
  ): Promise<boolean> {
    setBusy(key);
    say(key, null);
    try {
      const data = await api<T>('POST', path, body);
      onPedido(data.pedido);
      say(key, { ok: true, text: text(data) });
      return true;
    } catch (err) {
      say(key, { ok: false, text: errorMessage(err) });
      return false;
    } finally {
      setBusy(null);
    }
  }

  return {
    busy,
    feedback,
    checkin: (key: string, target: Target) =>
      run<{ leitura: Leitura; pedido: PedidoConsole | null }>(key, '/api/console/checkin', target, (d) =>
        d.leitura.mensagem && d.leitura.mensagem !== d.leitura.titulo
          ? `${d.leitura.titulo}: ${d.leitura.mensagem}`
          : d.leitura.titulo,
      ),
    reverse: (key: string, target: Target, motivo: string) =>
      run<{ mensagem: string; pedido: PedidoConsole | null }>(
        key,
        '/api/console/estorno',
        { ...target, motivo },
        (d) => d.mensagem || 'Check-in estornado.',
      ),
  };
}
