import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { formatDate } from '../format';
import { href, navigate } from '../router';
import { ErrorNote } from '../ui/ErrorNote';
import { StatusBadge } from '../ui/StatusBadge';
import type { ResultadoBusca } from '../../console.answers';
import { useLoad } from '../use-load';

// The back link of an order returns to the search that found it.
let lastQuery = '';
export const lastSearchHref = () => (lastQuery ? `#/busca?q=${encodeURIComponent(lastQuery)}` : '#/busca');

export function SearchView({ query }: { query: string }) {
  lastQuery = query;
  const [text, setText] = useState(query);
  const input = useRef<HTMLInputElement>(null);
  // The field follows the address only when the address changes (back, a link): on the first render
  // the effect would run after the page is shown and wipe what a fast typist already put there.
  const shownQuery = useRef(query);
  useEffect(() => {
    if (shownQuery.current === query) return;
    shownQuery.current = query;
    setText(query);
  }, [query]);
  useEffect(() => input.current?.focus(), []);

  const found = useLoad(
    async () =>
      query
        ? {
            query,
            ...(await api<{ resultados: ResultadoBusca[] }>(
              'GET',
              `/api/console/busca?q=${encodeURIComponent(query)}`,
            )),
          }
        : null,
    [query],
  );
  // The previous search's results never show under the new one's words while it loads.
  const current = found.data?.query === query ? found.data : null;

  const submit = (e: Event) => {
    e.preventDefault();
    const q = text.trim().slice(0, 100);
    if (!q) return;
    if (q === query) found.reload();
    else navigate(`#/busca?q=${encodeURIComponent(q)}`);
  };

  const results = current?.resultados ?? [];
  return (
    <section class="page" aria-labelledby="search-title">
      <h1 id="search-title">Buscar pedido</h1>
      <form class="search-form" role="search" onSubmit={submit}>
        <label for="search-q">Pedido, QR code, nome, CPF ou e-mail</label>
        <div class="row">
          <input
            id="search-q"
            ref={input}
            type="search"
            maxLength={100}
            required
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <button type="submit" class="btn btn-primary">
            Buscar
          </button>
        </div>
      </form>
      <ErrorNote error={found.error} />
      <div aria-live="polite" aria-busy={found.loading}>
        {current && (
          <p class="result-count">
            {results.length === 0
              ? `Nenhum pedido encontrado para “${query}”.`
              : `${results.length} pedido${results.length > 1 ? 's' : ''} para “${query}”.`}
          </p>
        )}
      </div>
      {results.length > 0 && (
        <ul class="search-results">
          {results.map((r) => (
            <li key={r.numero_pedido}>
              <a class="result-card" href={href('pedido', r.numero_pedido)}>
                <span class="result-head">
                  <strong>Pedido {r.numero_pedido}</strong> <StatusBadge status={r.status} />
                </span>
                <span>
                  {r.cliente_nome}
                  {r.cliente_email ? ` · ${r.cliente_email}` : ''}
                </span>
                <span>
                  {r.checkins} de {r.total_pessoas} entrada{r.total_pessoas === 1 ? '' : 's'} · uso{' '}
                  {formatDate(r.data_uso)}
                </span>
                {r.encontrado && <span class="hint">Encontrado: {r.encontrado}</span>}
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
