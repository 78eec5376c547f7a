/// <reference lib="webworker" />
// The app's service worker (scope /m/): precaches the shell and the camera's decoder in a cache named by the build's
// version, answers them cache-first so the app opens with the box away, and leaves /api/ to the network (never
// cached: a decision must not come from a cache). build.mjs fills PRECACHE and VERSION.
declare const PRECACHE: string[];
declare const VERSION: string;
const sw = self as unknown as ServiceWorkerGlobalScope;
const CACHE = `gate-handheld-${VERSION}`;

sw.addEventListener('install', (e) => {
  e.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(PRECACHE))
      .then(() => sw.skipWaiting()),
  );
});

sw.addEventListener('activate', (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(keys.filter((k) => k.startsWith('gate-handheld-') && k !== CACHE).map((k) => caches.delete(k))),
      )
      .then(() => sw.clients.claim()),
  );
});

sw.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== location.origin || !url.pathname.startsWith('/m/')) return;
  // The box's settings: fresh when it answers, the last ones when it does not.
  if (url.pathname === '/m/config.json') {
    e.respondWith(
      fetch(e.request)
        .then(async (res) => {
          if (res.ok) await (await caches.open(CACHE)).put(e.request, res.clone());
          return res;
        })
        .catch(async () => (await caches.match(e.request)) ?? Response.error()),
    );
    return;
  }
  // Any page under /m/ is the app (its state is in the URL's fragment).
  const key = e.request.mode === 'navigate' ? '/m/' : e.request;
  e.respondWith(caches.match(key, { cacheName: CACHE }).then((hit) => hit ?? fetch(e.request)));
});
