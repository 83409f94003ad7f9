// Luthier's shared event connection: one EventSource per stream for every tab of the shop in this
// browser. A browser allows six HTTP/1.1 connections per host; with a stream per tab, six open
// pages left no connection for a click's post. The session's stream carries every session page
// (builder, cart, checkout), so all of a customer's tabs share one connection; a kiosk or an
// order page shares one per stream it shows.
//
// Messages from a page: {type: 'subscribe', url, since} and {type: 'leave', url}.
// To a page: {type: 'patch', id, fragments}, {type: 'navigate', id, location},
// {type: 'status', live: 'connected' | 'reconnecting'}, {type: 'gone'} (reload: the session ended).
'use strict';

var streams = {};

function stream(url) {
  var existing = streams[url];
  if (existing) return existing;
  var created = {
    url: url,
    ports: [],
    source: null,
    // The newest HTML of every fragment the stream has sent, in the order first sent, and the
    // version (event id) it is at: a tab that joins gets them at once.
    fragments: {},
    order: [],
    lastEventID: null,
    // The version the cache is complete from (null: the whole state): a page rendered before it
    // cannot be brought up to date from the cache alone.
    cacheFrom: null,
    navigation: null,
    live: 'reconnecting',
    closeTimer: null
  };
  streams[url] = created;
  return created;
}

// A page applies what is newer than what it shows. Ids are a store's epoch (upper 32 bits) and its version: only ids of one epoch compare. An id of
// another epoch (a restarted server, a restored session) is the server's truth now, so newer.
function newer(id, than) {
  if (!than) return true;
  if (!id) return false;
  var epoch = Math.floor(Number(id) / 4294967296);
  if (epoch !== Math.floor(Number(than) / 4294967296)) return true;
  return Number(id) > Number(than);
}

function resumeURL(entry) {
  if (!entry.lastEventID) return entry.url;
  return entry.url + (entry.url.indexOf('?') < 0 ? '?' : '&') + 'since=' + encodeURIComponent(entry.lastEventID);
}

function send(entry, message) {
  entry.ports.forEach(function (port) { port.postMessage(message); });
}

function setLive(entry, live) {
  if (entry.live === live) return;
  entry.live = live;
  send(entry, { type: 'status', live: live });
}

function connect(entry) {
  var source = new EventSource(resumeURL(entry));
  entry.source = source;
  source.addEventListener('open', function () { setLive(entry, 'connected'); });
  source.addEventListener('patch', function (event) {
    var patch;
    try { patch = JSON.parse(event.data); } catch (error) { return; }
    if (event.lastEventId) entry.lastEventID = event.lastEventId;
    patch.fragments.forEach(function (fragment) {
      if (!(fragment.target in entry.fragments)) entry.order.push(fragment.target);
      entry.fragments[fragment.target] = fragment.html;
    });
    send(entry, { type: 'patch', id: entry.lastEventID, fragments: patch.fragments });
  });
  source.addEventListener('navigate', function (event) {
    var id = event.lastEventId || entry.lastEventID;
    entry.navigation = { id: id, location: event.data };
    send(entry, { type: 'navigate', id: id, location: event.data });
  });
  source.addEventListener('error', function () {
    setLive(entry, 'reconnecting');
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      if (entry.source === source) entry.source = null;
      probe(entry);
    }
  });
}

// The stream was refused. EventSource hides why, so ask once with fetch: busy waits the server's
// Retry-After with jitter, a session that is gone tells the pages (each reloads at most once a
// minute), an unreachable server is asked again after a few seconds.
function probe(entry) {
  if (entry.ports.length === 0) return;
  var controller = new AbortController();
  fetch(resumeURL(entry), {
    credentials: 'same-origin', headers: { 'Accept': 'text/event-stream' }, signal: controller.signal
  }).then(function (response) {
    controller.abort();
    if (response.ok) {
      connect(entry);
      return;
    }
    var retryAfter = Number(response.headers.get('Retry-After'));
    if (response.status === 503 || response.status === 429) {
      var seconds = retryAfter > 0 ? Math.min(retryAfter, 3600) : 5;
      setTimeout(function () { if (entry.ports.length > 0) connect(entry); }, seconds * 1000 * (1 + Math.random()));
    } else {
      send(entry, { type: 'gone' });
    }
  }, function () {
    setTimeout(function () { probe(entry); }, 2000 + Math.random() * 3000);
  });
}

function subscribe(port, url, since) {
  var entry = stream(url);
  if (entry.closeTimer !== null) {
    clearTimeout(entry.closeTimer);
    entry.closeTimer = null;
  }
  if (entry.ports.indexOf(port) < 0) entry.ports.push(port);
  port.postMessage({ type: 'status', live: entry.live });
  // What the stream has that is newer than the page: its fragments, and a navigation since.
  if (entry.lastEventID && newer(entry.lastEventID, since)) {
    port.postMessage({
      type: 'patch', id: entry.lastEventID,
      fragments: entry.order.map(function (target) { return { target: target, html: entry.fragments[target] }; })
    });
  }
  if (entry.navigation && newer(entry.navigation.id, since)) {
    port.postMessage({ type: 'navigate', id: entry.navigation.id, location: entry.navigation.location });
  }
  if (!entry.source) {
    if (!entry.lastEventID && since) {
      entry.lastEventID = since;
      entry.cacheFrom = since;
    }
    connect(entry);
  } else if (since && entry.cacheFrom && newer(entry.cacheFrom, since)) {
    // A page rendered before the cache begins: resume from its version instead, which sends
    // every tab a superset of what it lacks (fragments are idempotent).
    entry.source.close();
    entry.lastEventID = since;
    entry.cacheFrom = since;
    connect(entry);
  }
}

function leave(port, url) {
  var entry = streams[url];
  if (!entry) return;
  entry.ports = entry.ports.filter(function (other) { return other !== port; });
  if (entry.ports.length > 0 || entry.closeTimer !== null) return;
  // Kept a few seconds: going from the builder to the cart leaves and joins the same stream.
  entry.closeTimer = setTimeout(function () {
    entry.closeTimer = null;
    if (entry.ports.length > 0) return;
    if (entry.source) entry.source.close();
    delete streams[url];
  }, 5000);
}

self.addEventListener('connect', function (event) {
  var port = event.ports[0];
  port.addEventListener('message', function (message) {
    var data = message.data || {};
    if (typeof data.url !== 'string' || data.url.charAt(0) !== '/') return;
    if (data.type === 'subscribe') subscribe(port, data.url, data.since || null);
    if (data.type === 'leave') leave(port, data.url);
  });
  port.start();
});
