// Luthier's shared worker: every tab of the shop in this browser hands it the URL of the stream
// its page follows, and it follows them all on one connection with the stream client
// (`stream-client.js`, whose fingerprinted address the worker's own URL names as `client`),
// relaying to each tab what its stream sends.
//
// It keeps the newest HTML of each stream's fragments with its version, so a tab that joins gets
// the current state at once if it is newer than what the tab was rendered at; a tab rendered
// before that history makes the stream resume from the tab's version. A stream no tab shows is
// kept a few seconds (going from the builder to the cart leaves and joins the same stream).
//
// Messages from a page: {type: 'subscribe', url, since, hidden, hiddenClose},
// {type: 'visibility', url, hidden} and {type: 'leave', url}.
// To a page: {type: 'patch', id, fragments, note}, {type: 'navigate', id, location},
// {type: 'status', live: 'connected' | 'reconnecting'}, {type: 'gone'} (reload: the stream's
// session or order is not there any more).
'use strict';

// The client's address: a path of this shop's (the page names it), never another origin's.
const client = new URL(self.location.href).searchParams.get('client') || '/stream-client.js';
importScripts(/^\/[\w.-]+\.js$/.test(client) ? client : '/stream-client.js');

const { newer, Streams } = self.LuthierStreams;
/** How long a stream no tab shows is kept. */
const keepAfterLeaving = 5000;

/** What each followed stream's tabs need: url → its ports, its newest fragments (in the order first
 * sent, a changed one moved last) and version, its latest navigation, its state, and the version
 * its cache is complete from (null: the whole state). */
const pages = new Map();

function send(page, message) {
  for (const port of page.ports) port.postMessage(message);
}

const streams = new Streams({
  patch(url, id, fragments, note) {
    const page = pages.get(url);
    if (!page) return;
    page.version = id;
    for (const fragment of fragments) {
      page.fragments.delete(fragment.target);
      if (fragment.items) {
        // A list's edits are not its state: the cache is complete only from here, and a tab
        // rendered before this makes the stream resume from the tab's version (whole lists).
        page.cacheFrom = id;
      } else {
        page.fragments.set(fragment.target, fragment.html);
      }
    }
    send(page, { type: 'patch', id, fragments, note });
  },
  navigate(url, id, location) {
    const page = pages.get(url);
    if (!page) return;
    page.navigation = { id, location };
    send(page, { type: 'navigate', id, location });
  },
  status(url, live) {
    const page = pages.get(url);
    if (!page || page.live === live) return;
    page.live = live;
    send(page, { type: 'status', live });
  },
  gone(url) {
    const page = pages.get(url);
    if (!page) return;
    pages.delete(url);
    send(page, { type: 'gone' });
  }
});

// Each tab's visibility: port → {hidden, hiddenClose}. Once every tab has been hidden for the
// shortest hiddenClose among them, the browser's streams close; the first tab to show again opens
// them, each from its own version. A tab whose page never closes (the kiosk: hiddenClose 0) keeps
// them open.
const tabs = new Map();
let calmTimer = null;

function reviewCalm() {
  const all = [...tabs.values()];
  const calm = all.length > 0 && all.every((tab) => tab.hidden && tab.hiddenClose > 0);
  if (!calm) {
    clearTimeout(calmTimer);
    calmTimer = null;
    streams.resume();
    return;
  }
  if (calmTimer !== null || streams.paused) return;
  calmTimer = setTimeout(() => {
    calmTimer = null;
    streams.pause();
  }, Math.min(...all.map((tab) => tab.hiddenClose)));
}

function subscribe(port, url, since) {
  let page = pages.get(url);
  if (!page) {
    page = {
      ports: [], fragments: new Map(), version: null, navigation: null, live: 'reconnecting',
      cacheFrom: null, closeTimer: null
    };
    pages.set(url, page);
  }
  if (page.closeTimer !== null) {
    clearTimeout(page.closeTimer);
    page.closeTimer = null;
  }
  if (!page.ports.includes(port)) page.ports.push(port);
  port.postMessage({ type: 'status', live: page.live });
  // A page rendered before the cache begins resumes from its own version instead (below), which
  // sends it whole what it lacks; the cache alone would leave out what changed before it began.
  const beforeCache = Boolean(since && page.cacheFrom && newer(page.cacheFrom, since));
  // What the stream has that is newer than the page: its fragments, and a navigation since.
  if (page.version && newer(page.version, since) && !beforeCache) {
    port.postMessage({
      type: 'patch', id: page.version,
      fragments: [...page.fragments].map(([target, html]) => ({ target, html }))
    });
  }
  if (page.navigation && newer(page.navigation.id, since)) {
    port.postMessage({ type: 'navigate', id: page.navigation.id, location: page.navigation.location });
  }
  if (!streams.follows(url)) {
    page.cacheFrom = since;
    streams.follow(url, since);
  } else if (beforeCache) {
    // A page rendered before the cache begins: resume from its version instead, which sends
    // every tab a superset of what it lacks (fragments are idempotent).
    page.cacheFrom = since;
    streams.rewind(url, since);
  }
}

function leave(port, url) {
  const page = pages.get(url);
  if (!page) return;
  page.ports = page.ports.filter((other) => other !== port);
  if (page.ports.length > 0 || page.closeTimer !== null) return;
  page.closeTimer = setTimeout(() => {
    page.closeTimer = null;
    if (page.ports.length > 0) return;
    pages.delete(url);
    streams.unfollow(url);
  }, keepAfterLeaving);
}

self.addEventListener('connect', (event) => {
  const port = event.ports[0];
  port.addEventListener('message', (message) => {
    const data = message.data || {};
    if (typeof data.url !== 'string' || !data.url.startsWith('/')) return;
    if (data.type === 'subscribe') {
      tabs.set(port, { hidden: Boolean(data.hidden), hiddenClose: Number(data.hiddenClose) || 0 });
      subscribe(port, data.url, data.since || null);
    }
    if (data.type === 'visibility' && tabs.has(port)) tabs.get(port).hidden = Boolean(data.hidden);
    if (data.type === 'leave') {
      tabs.delete(port);
      leave(port, data.url);
    }
    reviewCalm();
  });
  port.start();
});
