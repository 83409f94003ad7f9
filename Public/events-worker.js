// Luthier's shared event connection: every stream that any tab of the shop in this browser
// follows (the session's, the kiosk's, each order's, each inspector's) on ONE connection,
// `GET /streams?follow=…&follow=…`. A browser opens at most six HTTP/1.1 connections to a host;
// with one per stream, a builder, a kiosk and four inspectors left none for a seventh tab or for a
// click's post. (The admin's shop inspector is followed on `/admin/streams`, where the admin's
// sign-in cookie goes: an admin's browser holds two.)
//
// Each event of the bundle carries its stream's tag (its place in the follow list) as its first
// data line. When the set of streams changes (a tab opens a page with another stream, or the last
// tab of one has been gone a few seconds), the worker opens a new bundle naming the one it
// replaces, with each stream's own version, so the server ends the old one first and sends each
// stream only what its tabs lack. It reconnects itself the same way after a cut.
//
// Messages from a page: {type: 'subscribe', url, since} and {type: 'leave', url}.
// To a page: {type: 'patch', id, fragments}, {type: 'navigate', id, location},
// {type: 'status', live: 'connected' | 'reconnecting'}, {type: 'gone'} (reload: the stream's
// session or order is not there any more).
'use strict';

/** Every followed stream, by its own URL. */
const streams = new Map();
/** The two bundles: the shop's, and the admin's under /admin. */
const bundles = new Map();
/** How long a stream no tab shows is kept: going from the builder to the cart leaves and joins. */
const keepAfterLeaving = 5000;
/** How long the worker waits for more tabs to join before opening a new bundle. */
const gatherTabs = 50;

function bundleOf(url) {
  const base = url.startsWith('/admin/') ? '/admin/streams' : '/streams';
  let bundle = bundles.get(base);
  if (!bundle) {
    bundle = { base, source: null, id: null, tags: [], retry: 2000, timer: null, at: 0 };
    bundles.set(base, bundle);
  }
  return bundle;
}

function stream(url) {
  let entry = streams.get(url);
  if (entry) return entry;
  entry = {
    url,
    ports: [],
    // The newest HTML of every fragment the stream has sent, in the order first sent, and the
    // version (event id) it is at: a tab that joins gets them at once.
    fragments: new Map(),
    lastEventID: null,
    // The version the cache is complete from (null: the whole state): a page rendered before it
    // cannot be brought up to date from the cache alone.
    cacheFrom: null,
    navigation: null,
    live: 'reconnecting',
    closeTimer: null,
    // Refused for now (busy): not asked for again before this time.
    waitUntil: 0
  };
  streams.set(url, entry);
  return entry;
}

// A page applies what is newer than what it shows. Ids are a store's epoch (upper 32 bits) and
// its version: only ids of one epoch compare. An id of another epoch (a restarted server, a
// restored session) is the server's truth now, so newer.
function newer(id, than) {
  if (!than) return true;
  if (!id) return false;
  const epoch = Math.floor(Number(id) / 4294967296);
  if (epoch !== Math.floor(Number(than) / 4294967296)) return true;
  return Number(id) > Number(than);
}

function resumeURL(entry) {
  if (!entry.lastEventID) return entry.url;
  return `${entry.url}${entry.url.includes('?') ? '&' : '?'}since=${encodeURIComponent(entry.lastEventID)}`;
}

function send(entry, message) {
  for (const port of entry.ports) port.postMessage(message);
}

function setLive(entry, live) {
  if (entry.live === live) return;
  entry.live = live;
  send(entry, { type: 'status', live });
}

/** The streams a bundle should follow now: those of its base that a tab shows (or showed a
 * moment ago) and that are not waiting out a refusal. */
function wanted(bundle) {
  // A refusal due within a second is due: the timer that asks again may fire a little early.
  const now = Date.now() + 1000;
  return [...streams.values()].filter(
    (entry) => bundleOf(entry.url) === bundle && entry.waitUntil <= now);
}

/** Opens the bundle again after `delay` (or sooner, if already due sooner). */
function schedule(bundle, delay) {
  const at = Date.now() + delay;
  if (bundle.timer !== null) {
    if (bundle.at <= at) return;
    clearTimeout(bundle.timer);
  }
  bundle.at = at;
  bundle.timer = setTimeout(() => {
    bundle.timer = null;
    connect(bundle);
  }, delay);
}

function bundleURL(bundle, entries) {
  const query = entries.map((entry) => `follow=${encodeURIComponent(resumeURL(entry))}`);
  if (bundle.id) query.push(`replaces=${encodeURIComponent(bundle.id)}`);
  return `${bundle.base}?${query.join('&')}`;
}

/** A tagged event's stream and its own data (the line after the tag). */
function untag(bundle, event) {
  const newline = event.data.indexOf('\n');
  if (newline < 0) return null;
  const entry = bundle.tags[Number(event.data.slice(0, newline))];
  if (!entry || streams.get(entry.url) !== entry) return null;
  return { entry, data: event.data.slice(newline + 1) };
}

function connect(bundle) {
  if (bundle.source) bundle.source.close();
  bundle.source = null;
  const entries = wanted(bundle).slice(0, 16);
  bundle.tags = entries;
  if (entries.length === 0) {
    bundle.id = null;
    return;
  }
  const source = new EventSource(bundleURL(bundle, entries));
  bundle.source = source;
  source.addEventListener('bundle', (event) => {
    try {
      const opening = JSON.parse(event.data);
      bundle.id = opening.id;
      if (opening.retry > 0) bundle.retry = opening.retry;
    } catch (error) { /* an opening it cannot read: the defaults hold */ }
    for (const entry of entries) setLive(entry, 'connected');
  });
  source.addEventListener('patch', (event) => {
    const tagged = untag(bundle, event);
    if (!tagged) return;
    let patch;
    try { patch = JSON.parse(tagged.data); } catch (error) { return; }
    const entry = tagged.entry;
    if (event.lastEventId) entry.lastEventID = event.lastEventId;
    for (const fragment of patch.fragments) {
      // Deleted first, so a changed fragment moves to the end: the order first sent is kept for
      // those that never change, the newest last.
      entry.fragments.delete(fragment.target);
      entry.fragments.set(fragment.target, fragment.html);
    }
    send(entry, { type: 'patch', id: entry.lastEventID, fragments: patch.fragments });
  });
  source.addEventListener('navigate', (event) => {
    const tagged = untag(bundle, event);
    if (!tagged) return;
    const entry = tagged.entry;
    const id = event.lastEventId || entry.lastEventID;
    entry.navigation = { id, location: tagged.data };
    send(entry, { type: 'navigate', id, location: tagged.data });
  });
  source.addEventListener('refused', (event) => {
    const tagged = untag(bundle, event);
    if (!tagged) return;
    let refusal = {};
    try { refusal = JSON.parse(tagged.data); } catch (error) { /* treated as gone */ }
    const entry = tagged.entry;
    if (refusal.status === 503 || refusal.status === 429) {
      // Busy: asked for again after the server's Retry-After, with jitter, so that screens left
      // open do not all come back in the same second.
      const seconds = refusal.retryAfter > 0 ? Math.min(refusal.retryAfter, 3600) : 5;
      const wait = seconds * 1000 * (1 + Math.random());
      entry.waitUntil = Date.now() + wait;
      setLive(entry, 'reconnecting');
      schedule(bundle, wait);
    } else {
      // Gone (no session, no such order, not the admin): its pages reload, at most once a minute,
      // and subscribe again.
      send(entry, { type: 'gone' });
      streams.delete(entry.url);
    }
  });
  source.addEventListener('error', () => {
    if (bundle.source !== source) return;
    const refused = source.readyState === EventSource.CLOSED;
    source.close();
    bundle.source = null;
    for (const entry of entries) setLive(entry, 'reconnecting');
    // Cut off (the server stopping, the network): back after the server's delay, with jitter, each
    // stream from its own version. Refused as a whole: ask why.
    if (refused) probe(bundle); else schedule(bundle, bundle.retry * (1 + Math.random()));
  });
}

// The bundle was refused. EventSource hides why, so ask once with fetch: busy waits the server's
// Retry-After with jitter, a bundle refused for what it asks tells its pages (each reloads at most
// once a minute), an unreachable server is asked again after a few seconds.
function probe(bundle) {
  const entries = wanted(bundle);
  if (entries.length === 0) return;
  const controller = new AbortController();
  fetch(bundleURL(bundle, entries), {
    credentials: 'same-origin', headers: { Accept: 'text/event-stream' }, signal: controller.signal
  }).then((response) => {
    controller.abort();
    if (response.ok) {
      connect(bundle);
      return;
    }
    const retryAfter = Number(response.headers.get('Retry-After'));
    if (response.status === 503 || response.status === 429) {
      const seconds = retryAfter > 0 ? Math.min(retryAfter, 3600) : 5;
      schedule(bundle, seconds * 1000 * (1 + Math.random()));
    } else {
      for (const entry of entries) {
        send(entry, { type: 'gone' });
        streams.delete(entry.url);
      }
    }
  }, () => {
    setTimeout(() => probe(bundle), 2000 + Math.random() * 3000);
  });
}

function subscribe(port, url, since) {
  const entry = stream(url);
  const bundle = bundleOf(url);
  if (entry.closeTimer !== null) {
    clearTimeout(entry.closeTimer);
    entry.closeTimer = null;
  }
  if (!entry.ports.includes(port)) entry.ports.push(port);
  port.postMessage({ type: 'status', live: entry.live });
  // What the stream has that is newer than the page: its fragments, and a navigation since.
  if (entry.lastEventID && newer(entry.lastEventID, since)) {
    port.postMessage({
      type: 'patch', id: entry.lastEventID,
      fragments: [...entry.fragments].map(([target, html]) => ({ target, html }))
    });
  }
  if (entry.navigation && newer(entry.navigation.id, since)) {
    port.postMessage({ type: 'navigate', id: entry.navigation.id, location: entry.navigation.location });
  }
  if (!bundle.tags.includes(entry)) {
    // A stream the bundle does not follow yet: from the page's version.
    if (!entry.lastEventID && since) {
      entry.lastEventID = since;
      entry.cacheFrom = since;
    }
    if (entry.waitUntil <= Date.now()) schedule(bundle, gatherTabs);
  } else if (since && entry.cacheFrom && newer(entry.cacheFrom, since)) {
    // A page rendered before the cache begins: resume from its version instead, which sends
    // every tab a superset of what it lacks (fragments are idempotent).
    entry.lastEventID = since;
    entry.cacheFrom = since;
    schedule(bundle, gatherTabs);
  }
}

function leave(port, url) {
  const entry = streams.get(url);
  if (!entry) return;
  entry.ports = entry.ports.filter((other) => other !== port);
  if (entry.ports.length > 0 || entry.closeTimer !== null) return;
  entry.closeTimer = setTimeout(() => {
    entry.closeTimer = null;
    if (entry.ports.length > 0) return;
    streams.delete(url);
    const bundle = bundleOf(url);
    if (bundle.tags.includes(entry)) schedule(bundle, 0);
  }, keepAfterLeaving);
}

self.addEventListener('connect', (event) => {
  const port = event.ports[0];
  port.addEventListener('message', (message) => {
    const data = message.data || {};
    if (typeof data.url !== 'string' || !data.url.startsWith('/')) return;
    if (data.type === 'subscribe') subscribe(port, data.url, data.since || null);
    if (data.type === 'leave') leave(port, data.url);
  });
  port.start();
});
