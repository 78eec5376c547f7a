import type { Relatorio } from '../../console.answers';

// Dark, distinct colours that stay readable in sunlight and with white text next to them.
const COLORS = ['#1f4e9c', '#b34700', '#0b6e3a', '#6b2a9c', '#222222', '#00727a', '#9c1f4e'];
const W = 720;
const H = 300;
const PAD = { left: 44, right: 12, top: 12, bottom: 36 };

/** A round top for the axis whose half is a whole number too (counts have no halves). */
function niceMax(n: number): number {
  if (n <= 4) return 4;
  const mag = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 4, 6, 8, 10]) if (step * mag >= n && (step * mag) % 2 === 0) return step * mag;
  return 10 * mag;
}

/** Entries per hour, one stacked bar per hour with a segment per lane (inline SVG, no library). */
export function HourChart({ porHora }: { porHora: Relatorio['por_hora'] }) {
  const lanes = [...new Set(porHora.map((p) => p.terminal))].sort();
  const color = (lane: string) => COLORS[lanes.indexOf(lane) % COLORS.length]!;
  const hours = Array.from({ length: 24 }, (_, h) => h);
  const totals = hours.map((h) => porHora.filter((p) => p.hora === h).reduce((n, p) => n + p.entradas, 0));
  const max = niceMax(Math.max(0, ...totals));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / 24;
  const barW = slot * 0.7;
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const ticks = [0, max / 2, max];
  const summary = hours
    .filter((h) => totals[h]! > 0)
    .map((h) => `${h}h: ${totals[h]}`)
    .join('; ');

  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-labelledby="chart-title chart-desc"
        preserveAspectRatio="xMidYMid meet"
      >
        <title id="chart-title">Entradas por hora e por pista</title>
        <desc id="chart-desc">{summary ? `Entradas por hora: ${summary}.` : 'Nenhuma entrada no dia.'}</desc>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} class="grid-line" />
            <text x={PAD.left - 6} y={y(t) + 4} text-anchor="end" class="axis-label">
              {t}
            </text>
          </g>
        ))}
        {hours.map((h) => {
          let base = 0;
          const x = PAD.left + h * slot + (slot - barW) / 2;
          return (
            <g key={h}>
              {lanes.map((lane) => {
                const v = porHora.find((p) => p.hora === h && p.terminal === lane)?.entradas ?? 0;
                if (v === 0) return null;
                const top = y(base + v);
                const bottom = y(base);
                base += v;
                return (
                  <rect
                    key={lane}
                    x={x}
                    y={top}
                    width={barW}
                    height={Math.max(1, bottom - top)}
                    fill={color(lane)}
                    data-hora={h}
                    data-pista={lane}
                  >
                    <title>{`${h}h, ${lane}: ${v} entrada${v === 1 ? '' : 's'}`}</title>
                  </rect>
                );
              })}
              {h % 2 === 0 && (
                <text x={x + barW / 2} y={H - PAD.bottom + 16} text-anchor="middle" class="axis-label">{`${h}h`}</text>
              )}
            </g>
          );
        })}
        <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} class="axis-line" />
      </svg>
      {lanes.length > 0 && (
        <figcaption>
          <ul class="legend">
            {lanes.map((lane) => (
              <li key={lane}>
                <span class="swatch" style={{ background: color(lane) }} aria-hidden="true" /> {lane}
              </li>
            ))}
          </ul>
        </figcaption>
      )}
    </figure>
  );
}
