// Dates and money the way a Brazilian operator reads them. Times are shown in the station's own
// time zone: the tablet sits at the park gate, in the park's zone.

const time = new Intl.DateTimeFormat('pt-BR', { hour: '2-digit', minute: '2-digit' });
const timeSeconds = new Intl.DateTimeFormat('pt-BR', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dateTime = new Intl.DateTimeFormat('pt-BR', {
  day: '2-digit',
  month: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});
const money = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

const valid = (iso: string | null | undefined): iso is string => !!iso && !Number.isNaN(Date.parse(iso));

export const formatTime = (iso: string | null | undefined) => (valid(iso) ? time.format(new Date(iso)) : '—');
export const formatTimeSeconds = (iso: string | null | undefined) =>
  valid(iso) ? timeSeconds.format(new Date(iso)) : '—';
export const formatDateTime = (iso: string | null | undefined) =>
  valid(iso) ? dateTime.format(new Date(iso)).replace(',', '') : '—';

/** 'YYYY-MM-DD' (a local date of the API) as 'DD/MM/YYYY'. */
export function formatDate(date: string | null | undefined): string {
  const m = date ? /^(\d{4})-(\d{2})-(\d{2})/.exec(date) : null;
  return m ? `${m[3]}/${m[2]}/${m[1]}` : '—';
}

export const formatMoney = (value: number | null | undefined) =>
  typeof value === 'number' ? money.format(value) : '—';

/** How long ago, in words: 'há 3 min'. */
export function formatAge(iso: string | null | undefined, now = Date.now()): string {
  if (!valid(iso)) return 'nunca';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `há ${s} s`;
  if (s < 3600) return `há ${Math.floor(s / 60)} min`;
  if (s < 86_400) return `há ${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `há ${Math.floor(s / 86_400)} dias`;
}

export const STATUS_LABEL: Record<string, string> = {
  pago: 'PAGO',
  cancelado: 'CANCELADO',
  reembolsado: 'REEMBOLSADO',
};
export const statusLabel = (s: string) => STATUS_LABEL[s] ?? s.toUpperCase();

/** '52998224725' → '529.982.247-25'; anything else as it came. */
export function formatCpf(cpf: string | null | undefined): string {
  const d = (cpf ?? '').replace(/\D/g, '');
  return d.length === 11 ? `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}` : (cpf ?? '');
}
