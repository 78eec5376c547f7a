import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { formatDate } from '../format';
import { navigate } from '../router';
import { ErrorNote } from '../ui/ErrorNote';
import type { Relatorio } from '../../console.answers';
import { useLoad } from '../use-load';
import { HourChart } from './HourChart';

/** The day's report; without a date, the box's today (the box's clock is the one that counts). */
export function ReportView({ date }: { date: string }) {
  const report = useLoad(
    () => api<Relatorio>('GET', `/api/console/relatorio${date ? `?data=${encodeURIComponent(date)}` : ''}`),
    [date],
  );
  const r = report.data;
  const [field, setField] = useState(date);
  useEffect(() => setField(date || r?.data || ''), [date, r?.data]);

  const submit = (e: Event) => {
    e.preventDefault();
    if (field) navigate(`#/relatorio?data=${encodeURIComponent(field)}`);
  };
  const byLane = r
    ? [...new Set(r.por_hora.map((p) => p.terminal))]
        .sort()
        .map((t) => ({ t, n: r.por_hora.filter((p) => p.terminal === t).reduce((s, p) => s + p.entradas, 0) }))
    : [];

  return (
    <section class="page" aria-labelledby="report-title">
      <h1 id="report-title">Relatório do dia{r ? ` ${formatDate(r.data)}` : ''}</h1>
      <form class="row" onSubmit={submit}>
        <label for="report-date">Data</label>
        <input id="report-date" type="date" required value={field} onInput={(e) => setField(e.currentTarget.value)} />
        <button type="submit" class="btn btn-primary">
          Ver
        </button>
        {r && (
          <a
            class="btn"
            href={`/api/console/relatorio?data=${encodeURIComponent(r.data)}&formato=csv`}
            download={`relatorio-${r.data}.csv`}
          >
            Baixar CSV
          </a>
        )}
      </form>
      <ErrorNote error={report.error} />
      {r && (
        <>
          <div class="grid-2">
            <p class="card big-number">
              <span>{r.total_entradas}</span> entradas
            </p>
            <p class="card big-number">
              <span>{r.total_recusas}</span> recusas
            </p>
          </div>
          <section class="card" aria-labelledby="hours-title">
            <h2 id="hours-title">Entradas por hora</h2>
            <HourChart porHora={r.por_hora} />
            {byLane.length > 0 && (
              <table class="compact">
                <caption>Entradas por pista</caption>
                <thead>
                  <tr>
                    <th scope="col">Pista</th>
                    <th scope="col">Entradas</th>
                  </tr>
                </thead>
                <tbody>
                  {byLane.map(({ t, n }) => (
                    <tr key={t}>
                      <td>{t}</td>
                      <td>{n}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section class="card" aria-labelledby="refusals-title">
            <h2 id="refusals-title">Recusas por motivo</h2>
            {r.recusas.length === 0 ? (
              <p>Nenhuma recusa no dia.</p>
            ) : (
              <table class="compact">
                <thead>
                  <tr>
                    <th scope="col">Motivo</th>
                    <th scope="col">Total</th>
                  </tr>
                </thead>
                <tbody>
                  {r.recusas.map((x) => (
                    <tr key={x.code}>
                      <td>{x.titulo}</td>
                      <td>{x.total}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </section>
  );
}
