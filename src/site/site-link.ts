import type { SitePart } from './site.start.js';

// The site link: being written (issue 23).
export function startLink(_deps: unknown): Promise<SitePart> {
  return Promise.reject(new Error('o site ainda não está pronto nesta versão'));
}
