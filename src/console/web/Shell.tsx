import { useEffect } from 'preact/hooks';
import { useLiveStatus } from './live';
import { href, navigate, useRoute } from './router';
import { isSupervisor, useSession } from './session';
import { GatesView } from './gates/GatesView';
import { HandheldsView } from './handhelds/HandheldsView';
import { OperatorsView } from './operators/OperatorsView';
import { OrderView } from './order/OrderView';
import { ReportView } from './report/ReportView';
import { ScanView } from './scan/ScanView';
import { SearchView } from './search/SearchView';
import { SyncView } from './sync/SyncView';
import { SiteBanner } from './site/SiteBanner';
import { SiteView } from './site/SiteView';
import { useSiteMode } from './site/use-site-mode';

interface Screen {
  id: string;
  label: string;
  supervisor: boolean;
}
const SCREENS: Screen[] = [
  { id: 'leitura', label: 'Leitura', supervisor: false },
  { id: 'busca', label: 'Busca', supervisor: false },
  { id: 'pistas', label: 'Pistas', supervisor: true },
  { id: 'sync', label: 'Sincronização', supervisor: true },
  { id: 'site', label: 'Site', supervisor: true },
  { id: 'handhelds', label: 'Handhelds', supervisor: true },
  { id: 'operadores', label: 'Operadores', supervisor: true },
  { id: 'relatorio', label: 'Relatório', supervisor: true },
];
const TITLES: Record<string, string> = { pedido: 'Pedido' };

function ConnectionBanner() {
  const { online } = useLiveStatus();
  // Always in the page, so screen readers announce the change when the text appears.
  return (
    <div role="alert" class={online === false ? 'banner banner-offline' : 'banner-empty'}>
      {online === false ? 'Sem conexão com a caixa. Tentando reconectar…' : ''}
    </div>
  );
}

export function Shell(props: { onSignOut: () => void }) {
  const sessao = useSession();
  const route = useRoute();
  const supervisor = isSupervisor(sessao);
  const screen = route.parts[0] ?? '';
  const siteMode = useSiteMode();
  // The site's screen is in the menu of a box that is part of a site (its address works on any box).
  const shown = (s: Screen) =>
    (supervisor || !s.supervisor) && (s.id !== 'site' || (siteMode?.modo ?? 'desligado') !== 'desligado');

  useEffect(() => {
    if (!screen) navigate('#/leitura');
  }, [screen]);

  useEffect(() => {
    const label = SCREENS.find((s) => s.id === screen)?.label ?? TITLES[screen] ?? 'Console';
    document.title = `${label} · Console da portaria`;
  }, [screen]);

  const restricted = SCREENS.find((s) => s.id === screen)?.supervisor && !supervisor;
  let content;
  if (restricted)
    content = (
      <p class="card notice" role="alert">
        Esta tela é só para supervisores.
      </p>
    );
  else if (screen === 'busca') content = <SearchView query={route.query.get('q') ?? ''} />;
  else if (screen === 'pedido') content = <OrderView numero={route.parts[1] ?? ''} />;
  else if (screen === 'pistas') content = <GatesView />;
  else if (screen === 'sync') content = <SyncView />;
  else if (screen === 'site') content = <SiteView />;
  else if (screen === 'handhelds') content = <HandheldsView />;
  else if (screen === 'operadores') content = <OperatorsView />;
  else if (screen === 'relatorio') content = <ReportView date={route.query.get('data') ?? ''} />;
  else content = <ScanView />;

  return (
    <div class={`shell screen-${screen || 'leitura'}`}>
      <a
        class="skip"
        href="#conteudo"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('conteudo')?.focus();
        }}
      >
        Ir para o conteúdo
      </a>
      <header class="topbar">
        <nav aria-label="Telas">
          <ul>
            {SCREENS.filter(shown).map((s) => (
              <li key={s.id}>
                <a
                  href={href(s.id)}
                  aria-current={screen === s.id || (s.id === 'busca' && screen === 'pedido') ? 'page' : undefined}
                >
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {sessao.operador.nome} ({sessao.operador.papel === 'supervisor' ? 'supervisor' : 'atendente'}) ·{' '}
            {sessao.estacao}
          </span>
          <button type="button" class="btn btn-small" onClick={props.onSignOut}>
            Sair
          </button>
        </div>
      </header>
      <ConnectionBanner />
      <SiteBanner mode={siteMode} />
      <main id="conteudo" tabIndex={-1}>
        {content}
      </main>
    </div>
  );
}
