import type { BoxRoutes } from '../app.js';
import type { SiteInfo } from './site.answers.js';

export interface SitePart {
  /** What status, metrics and the console read; undefined on a single box. */
  info: SiteInfo | undefined;
  routes: BoxRoutes;
  /** Publishes nothing more, drains what is in flight, closes the connection to the hub. */
  close: (() => Promise<void>) | undefined;
}

// The site link: being written (issue 23).
export function startLink(_deps: unknown): Promise<SitePart> {
  return Promise.reject(new Error('o site ainda não está pronto nesta versão'));
}
