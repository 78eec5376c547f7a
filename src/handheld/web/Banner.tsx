import type { EngineState } from './engine';

const age = (gerado: string | undefined, now: number): string => {
  if (!gerado) return 'sem dados';
  const min = Math.max(0, Math.round((now - Date.parse(gerado)) / 60_000));
  return min < 1 ? 'dados de agora' : `dados de ${min} min atrás`;
};

/** Offline: big, with the data's age and the queue; online: a thin line with the queue when there is one. */
export function Banner({ s, now }: { s: EngineState; now: number }) {
  if (s.revoked)
    return (
      <div class="banner revoked" role="status">
        APARELHO REVOGADO: pareie de novo · {s.fila} na fila
      </div>
    );
  if (s.mode === 'offline')
    return (
      <div class="banner offline" role="status">
        <strong>OFFLINE</strong>
        <span>
          {age(s.dados?.gerado_em, now)} · {s.fila} na fila
        </span>
      </div>
    );
  return (
    <div class="banner online" role="status">
      Conectado ao box · {s.fila} na fila{s.recusados > 0 ? ` · ${s.recusados} com erro` : ''}
    </div>
  );
}
