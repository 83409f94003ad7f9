// Luthier's event-stream client, the one both the shared worker (for every tab of a browser) and a
// page without SharedWorker (for itself) follow their streams with. It follows every stream it
// is given on ONE connection, `GET /streams?follow=…&follow=…` (the admin's shop inspector on
// `/admin/streams`, where the admin's sign-in cookie goes): a browser opens at most six HTTP/1.1
// connections to a host, and a connection per stream left none for a seventh tab or a click's post.
//
// Each event of a bundle carries its stream's tag (its place in the follow list) as its first data
// line. When the set of streams changes, the client opens a new bundle naming the one it replaces
// (so the server ends that one first) with each stream's own version, and the server sends each
// stream only what it lacks. After a cut it reconnects the same way, after the server's delay with
// jitter; a refused stream is asked for again after its Retry-After, or reported gone.
//
// Loaded by a page (a script before app.js) and by the worker (importScripts); it defines
// `self.LuthierStreams`.
'use strict';

(() => {
  /** Streams one bundle follows at most: the server's bound. */
  const bundleLimit = 16;
  /** How long a change of the set waits for more (ten tabs restored at once open one bundle). */
  const gather = 50;

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

  /** Seconds to wait for a busy answer, with up to as much again at random, so that screens left
   * open do not all come back in the same second. */
  function busyWait(retryAfter) {
    const seconds = retryAfter > 0 ? Math.min(retryAfter, 3600) : 5;
    return seconds * 1000 * (1 + Math.random());
  }

  /** Follows streams by their URLs and tells `listener` what they send:
   * `patch(url, id, fragments, note)` (`note`: the change's cause, while its session highlights
   * updates), `navigate(url, id, location)`,
   * `status(url, 'connected' | 'reconnecting')` and `gone(url)` (its session, order or sign-in is
   * not there any more: reload). */
  class Streams {
    constructor(listener) {
      this.listener = listener;
      /** url → {url, lastEventID, waitUntil}: the version each stream is at, and, while refused as
       * busy, when it may be asked for again. */
      this.followed = new Map();
      /** base → the bundle on it. */
      this.bundles = new Map();
      /** Whether the bundles are closed while every tab is hidden (`pause`, `resume`). */
      this.paused = false;
    }

    /** Follows `url` from `since` (the version its page was rendered at), if not already. */
    follow(url, since) {
      let entry = this.followed.get(url);
      if (entry) return;
      entry = { url, lastEventID: since || null, waitUntil: 0 };
      this.followed.set(url, entry);
      this.schedule(this.bundleOf(url), gather);
    }

    /** Whether `url` is followed now. */
    follows(url) {
      return this.followed.has(url);
    }

    /** Follows `url` again from `since`: a page rendered before what its stream has sent since. */
    rewind(url, since) {
      const entry = this.followed.get(url);
      if (!entry) return this.follow(url, since);
      entry.lastEventID = since;
      this.schedule(this.bundleOf(url), gather);
    }

    /** Closes every bundle, keeping each stream's version: the browser's tabs are all hidden. */
    pause() {
      this.paused = true;
      for (const bundle of this.bundles.values()) {
        if (bundle.timer !== null) clearTimeout(bundle.timer);
        bundle.timer = null;
        if (bundle.source) bundle.source.close();
        bundle.source = null;
        bundle.id = null;
      }
    }

    /** Opens the bundles again, each stream from its own version: a tab shows again. */
    resume() {
      if (!this.paused) return;
      this.paused = false;
      for (const bundle of this.bundles.values()) this.schedule(bundle, 0);
    }

    /** Stops following `url`. */
    unfollow(url) {
      const entry = this.followed.get(url);
      if (!entry) return;
      this.followed.delete(url);
      const bundle = this.bundleOf(url);
      if (bundle.tags.includes(entry)) this.schedule(bundle, 0);
    }

    bundleOf(url) {
      const base = url.startsWith('/admin/') ? '/admin/streams' : '/streams';
      let bundle = this.bundles.get(base);
      if (!bundle) {
        bundle = { base, source: null, id: null, tags: [], retry: 2000, timer: null, at: 0 };
        this.bundles.set(base, bundle);
      }
      return bundle;
    }

    /** The streams a bundle should follow now: those of its base not waiting out a refusal. */
    wanted(bundle) {
      // A refusal due within a second is due: the timer that asks again may fire a little early.
      const now = Date.now() + 1000;
      return [...this.followed.values()]
        .filter((entry) => this.bundleOf(entry.url) === bundle && entry.waitUntil <= now)
        .slice(0, bundleLimit);
    }

    /** Opens the bundle again after `delay` (or sooner, if it is already due sooner). */
    schedule(bundle, delay) {
      const at = Date.now() + delay;
      if (bundle.timer !== null) {
        if (bundle.at <= at) return;
        clearTimeout(bundle.timer);
      }
      bundle.at = at;
      bundle.timer = setTimeout(() => {
        bundle.timer = null;
        this.connect(bundle);
      }, delay);
    }

    static resumeURL(entry) {
      if (!entry.lastEventID) return entry.url;
      const separator = entry.url.includes('?') ? '&' : '?';
      return `${entry.url}${separator}since=${encodeURIComponent(entry.lastEventID)}`;
    }

    static bundleURL(bundle, entries) {
      const query = entries.map((entry) => `follow=${encodeURIComponent(Streams.resumeURL(entry))}`);
      if (bundle.id) query.push(`replaces=${encodeURIComponent(bundle.id)}`);
      return `${bundle.base}?${query.join('&')}`;
    }

    /** A tagged event's stream (if still followed) and its own data (after the tag's line). */
    untag(bundle, event) {
      const newline = event.data.indexOf('\n');
      if (newline < 0) return null;
      const entry = bundle.tags[Number(event.data.slice(0, newline))];
      if (!entry || this.followed.get(entry.url) !== entry) return null;
      return { entry, data: event.data.slice(newline + 1) };
    }

    gone(entry) {
      this.followed.delete(entry.url);
      this.listener.gone(entry.url);
    }

    connect(bundle) {
      if (bundle.source) bundle.source.close();
      bundle.source = null;
      if (this.paused) return;
      const entries = this.wanted(bundle);
      bundle.tags = entries;
      if (entries.length === 0) {
        bundle.id = null;
        return;
      }
      const source = new EventSource(Streams.bundleURL(bundle, entries));
      bundle.source = source;
      source.addEventListener('bundle', (event) => {
        try {
          const opening = JSON.parse(event.data);
          bundle.id = opening.id;
          if (opening.retry > 0) bundle.retry = opening.retry;
        } catch (error) { /* an opening it cannot read: the defaults hold */ }
        for (const entry of entries) this.listener.status(entry.url, 'connected');
      });
      source.addEventListener('patch', (event) => {
        const tagged = this.untag(bundle, event);
        if (!tagged) return;
        let patch;
        try { patch = JSON.parse(tagged.data); } catch (error) { return; }
        if (event.lastEventId) tagged.entry.lastEventID = event.lastEventId;
        this.listener.patch(tagged.entry.url, tagged.entry.lastEventID, patch.fragments, patch.note);
      });
      source.addEventListener('navigate', (event) => {
        const tagged = this.untag(bundle, event);
        if (!tagged) return;
        this.listener.navigate(tagged.entry.url, event.lastEventId || tagged.entry.lastEventID, tagged.data);
      });
      source.addEventListener('refused', (event) => {
        const tagged = this.untag(bundle, event);
        if (!tagged) return;
        let refusal = {};
        try { refusal = JSON.parse(tagged.data); } catch (error) { /* treated as gone */ }
        if (refusal.status === 503 || refusal.status === 429) {
          const wait = busyWait(refusal.retryAfter);
          tagged.entry.waitUntil = Date.now() + wait;
          this.listener.status(tagged.entry.url, 'reconnecting');
          this.schedule(bundle, wait);
        } else {
          this.gone(tagged.entry);
        }
      });
      source.addEventListener('error', () => {
        if (bundle.source !== source) return;
        const refused = source.readyState === EventSource.CLOSED;
        source.close();
        bundle.source = null;
        for (const entry of entries) {
          if (this.followed.get(entry.url) === entry) this.listener.status(entry.url, 'reconnecting');
        }
        // Cut off (the server stopping, the network): back after the server's delay, with jitter,
        // each stream from its own version. Refused as a whole: ask why.
        if (refused) this.probe(bundle); else this.schedule(bundle, bundle.retry * (1 + Math.random()));
      });
    }

    // The bundle was refused. EventSource hides why, so ask once with fetch: busy waits the
    // server's Retry-After with jitter, a bundle refused for what it asks reports its streams
    // gone, an unreachable server is asked again after a few seconds.
    probe(bundle) {
      const entries = this.wanted(bundle);
      if (entries.length === 0) return;
      const controller = new AbortController();
      fetch(Streams.bundleURL(bundle, entries), {
        credentials: 'same-origin', headers: { Accept: 'text/event-stream' }, signal: controller.signal
      }).then((response) => {
        controller.abort();
        if (response.ok) {
          this.connect(bundle);
        } else if (response.status === 503 || response.status === 429) {
          this.schedule(bundle, busyWait(Number(response.headers.get('Retry-After'))));
        } else {
          for (const entry of entries) this.gone(entry);
        }
      }, () => {
        setTimeout(() => this.probe(bundle), 2000 + Math.random() * 3000);
      });
    }
  }

  self.LuthierStreams = { newer, Streams };
})();
