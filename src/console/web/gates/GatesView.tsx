import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorMessage } from '../api';
import { formatTime } from '../format';
import { useLiveEvent } from '../live';
import { ErrorNote } from '../ui/ErrorNote';
import type { Alarme, AlarmeIncendio, Leitura, PainelPistas, Pista } from '../../console.answers';
import { useLoad } from '../use-load';
import { AlarmList } from './AlarmList';
import { LaneCard } from './LaneCard';
import { RecentScans } from './RecentScans';

function entriesByLane(e: PainelPistas['entradas_hoje']): {
  total: number | null;
  of: (lane: string) => number | null;
} {
  // The panel counts the day's entries of all lanes (console.answers.ts): no count per lane.
  return { total: e, of: () => null };
}

const upsertAlarm = (list: Alarme[], a: Alarme) =>
  list.some((x) => x.id === a.id) ? list.map((x) => (x.id === a.id ? a : x)) : [a, ...list];

export function GatesView() {
  const panel = useLoad(() => api<PainelPistas>('GET', '/api/console/pistas'), []);
  const [busy, setBusy] = useState<number | null>(null);
  const [ackErrors, setAckErrors] = useState<Record<number, string>>({});
  const refresh = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refresh.current), []);

  useLiveEvent<{ pistas: Pista[]; alarme_incendio: AlarmeIncendio | null }>('pistas', (d) =>
    panel.setData((p) =>
      p && d ? { ...p, pistas: d.pistas ?? p.pistas, alarme_incendio: d.alarme_incendio ?? p.alarme_incendio } : p,
    ),
  );
  useLiveEvent<Alarme>('alarme', (a) =>
    panel.setData((p) => (p && a ? { ...p, alarmes: upsertAlarm(p.alarmes, a) } : p)),
  );
  useLiveEvent<Alarme>('alarme_reconhecido', (a) =>
    panel.setData((p) => (p && a ? { ...p, alarmes: upsertAlarm(p.alarmes, a) } : p)),
  );
  useLiveEvent<Leitura>('leitura', (l) => {
    panel.setData((p) => (p && l ? { ...p, ultimas_leituras: [l, ...p.ultimas_leituras].slice(0, 20) } : p));
    // The day's counts come from the box: refetched once a burst of scans settles.
    clearTimeout(refresh.current);
    refresh.current = setTimeout(panel.reload, 1500);
  });

  const acknowledge = async (id: number) => {
    setBusy(id);
    setAckErrors((e) => ({ ...e, [id]: '' }));
    try {
      const a = await api<Alarme | { alarme: Alarme } | null>('POST', `/api/console/alarmes/${id}/reconhecer`, {});
      const alarm = a && 'alarme' in a ? a.alarme : a && 'id' in a ? a : null;
      if (alarm) panel.setData((p) => (p ? { ...p, alarmes: upsertAlarm(p.alarmes, alarm) } : p));
      else panel.reload();
    } catch (err) {
      setAckErrors((e) => ({ ...e, [id]: errorMessage(err) }));
    } finally {
      setBusy(null);
    }
  };

  const data = panel.data;
  const entries = data ? entriesByLane(data.entradas_hoje) : null;
  return (
    <section class="page" aria-labelledby="gates-title">
      <h1 id="gates-title">Pistas</h1>
      <ErrorNote error={panel.error} />
      {data?.alarme_incendio?.ativo && (
        <p class="banner banner-fire" role="alert">
          ALARME DE INCÊNDIO desde {formatTime(data.alarme_incendio.desde)}: catracas liberadas (
          {data.alarme_incendio.origens.join(', ')}).
        </p>
      )}
      {data && !data.configurado && <p class="card notice">Nenhuma pista configurada nesta caixa.</p>}
      {data && (
        <>
          {entries?.total !== null && entries?.total !== undefined && (
            <p class="big-number">
              <span>{entries.total}</span> entradas hoje
            </p>
          )}
          <AlarmList alarmes={data.alarmes} busy={busy} errors={ackErrors} onAck={(id) => void acknowledge(id)} />
          {data.pistas.length > 0 && (
            <section aria-labelledby="lanes-title">
              <h2 id="lanes-title">Catracas</h2>
              <ul class="lanes">
                {data.pistas.map((p) => (
                  <LaneCard key={p.nome} pista={p} entries={entries?.of(p.nome) ?? null} />
                ))}
              </ul>
            </section>
          )}
          <RecentScans leituras={data.ultimas_leituras} />
        </>
      )}
    </section>
  );
}
