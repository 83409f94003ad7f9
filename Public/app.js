// Luthier's browser side: follows the page's event stream and posts picker changes.
// Every page works without it; this only makes changes live and avoids reloads. It runs after
// stream-client.js (the page loads both), whose client it follows its stream with.
'use strict';

(() => {
  const root = document.documentElement;
  // The shared worker's address, fingerprinted like this script's, with the stream client's (the
  // page names both).
  const workerURL = document.currentScript?.dataset.worker || '/events-worker.js';
  // How long every tab may be hidden before the streams close (milliseconds; 0 or absent: never,
  // as on the kiosk, which the shop's page never gives one).
  const hiddenClose = Number(document.currentScript?.dataset.hiddenClose) || 0;
  const isHidden = () => document.visibilityState === 'hidden';
  const { newer, Streams } = self.LuthierStreams || {};
  if (!Streams || !('EventSource' in window)) {
    return; // An old browser, or the client did not load: the plain forms do everything.
  }
  root.classList.add('js');

  const notice = document.getElementById('notice');
  function showNotice(message) {
    if (!notice) return;
    notice.textContent = message;
    notice.hidden = false;
  }
  function clearNotice() {
    if (!notice) return;
    notice.hidden = true;
    notice.textContent = '';
  }

  // Where every open page of the session is asked to go (a checkout ready, a checkout ended): a
  // page follows only the places it names in data-follows (the builder goes on to its checkout,
  // the checkout back to the builder). Any other page (a cart being compared, a guide half-way)
  // stays, and says where the session went, with a link.
  const follows = (document.body.getAttribute('data-follows') || '').split(' ');
  const elsewhere = {
    '/checkout': ['Your checkout is ready, started in another tab. ', 'Go to the checkout'],
    '/': ['The checkout in another tab has ended. ', 'Back to the builder']
  };
  function navigate(location) {
    if (!location || !location.startsWith('/') || location === window.location.pathname) return;
    if (follows.includes(location)) {
      window.location.assign(location);
      return;
    }
    const words = elsewhere[location];
    if (!notice || !words) return;
    notice.textContent = words[0];
    const link = document.createElement('a');
    link.href = location;
    link.textContent = words[1];
    notice.appendChild(link);
    notice.hidden = false;
  }

  // The stream inspector's diagram is held as it is while paused, and while a marble has the
  // keyboard focus or the pointer, so that its text can be read. What the stream sends meanwhile
  // (the diagram whole, or a change's marbles and the clock as edits of it) goes to a copy of the
  // diagram, kept apart from the page, and the copy is shown once the hold ends.
  const withheld = new Map();
  function isHeld(element) {
    if (element.id !== 'inspector-lanes') return false;
    const pause = document.getElementById('inspector-pause');
    return pause?.checked || element.contains(document.activeElement) || element.matches(':hover');
  }
  function releaseWithheld() {
    for (const [target, copy] of withheld) {
      const element = document.getElementById(target);
      if (!element || isHeld(element)) continue;
      morphChildren(element, copy);
      withheld.delete(target);
    }
  }
  // The copy a held fragment's patches go to: the page's own, the first time.
  function withheldCopy(target, element) {
    let copy = withheld.get(target);
    if (!copy) {
      copy = element.cloneNode(true);
      withheld.set(target, copy);
    }
    return copy;
  }
  const lanes = document.getElementById('inspector-lanes');
  if (lanes) {
    // After the pointer or the focus has really left (the events come before :hover and
    // activeElement say so).
    const later = () => window.setTimeout(releaseWithheld, 0);
    lanes.addEventListener('pointerleave', later);
    lanes.addEventListener('focusout', later);
    document.addEventListener('change', (event) => {
      if (event.target?.id === 'inspector-pause') later();
    });
    // Keyboard first: the arrow keys move between marbles (left and right along a lane, up and
    // down to the nearest marble of the lane above or below); Enter on a marble selects its
    // change (it is a link). The diagram is held while a marble has the focus.
    lanes.addEventListener('keydown', (event) => {
      const marble = event.target.closest?.('.marble');
      if (!marble) return;
      const next = neighbour(marble, event.key);
      if (!next) return;
      event.preventDefault();
      next.focus();
    });
  }
  // The marbles sit at their instants in one group, which moves left as time passes: the server
  // sends new marbles and its clock (`#inspector-clock`), and the page moves them itself, each
  // frame the browser draws (none while the tab is hidden), once a second under reduced motion,
  // and not at all while the diagram is held.
  if (lanes) {
    const reduced = window.matchMedia('(prefers-reduced-motion: reduce)');
    let clockSeen = null;
    let clockAt = 0;
    let movedAt = 0;
    const move = (time) => {
      window.requestAnimationFrame(move);
      const clock = document.getElementById('inspector-clock');
      const marbles = document.getElementById('inspector-marbles');
      if (!clock || !marbles || isHeld(lanes)) return;
      const now = Number(clock.dataset.now);
      if (now !== clockSeen) {
        clockSeen = now;
        clockAt = time;
      } else if (reduced.matches && time - movedAt < 1000) {
        return;
      }
      movedAt = time;
      const shift = Number(marbles.dataset.origin) - (now + time - clockAt) * Number(clock.dataset.scale);
      marbles.setAttribute('transform', `translate(${shift.toFixed(1)} 0)`);
    };
    window.requestAnimationFrame(move);
  }
  function neighbour(marble, key) {
    const lane = Number(marble.dataset.lane);
    const x = Number(marble.dataset.x);
    const on = (row) => [...lanes.querySelectorAll(`.marble[data-lane="${row}"]`)]
      .sort((a, b) => Number(a.dataset.x) - Number(b.dataset.x));
    if (key === 'ArrowLeft' || key === 'ArrowRight') {
      const row = on(lane);
      return row[row.indexOf(marble) + (key === 'ArrowRight' ? 1 : -1)];
    }
    if (key !== 'ArrowUp' && key !== 'ArrowDown') return null;
    const row = on(lane + (key === 'ArrowDown' ? 1 : -1));
    return row.reduce((best, candidate) =>
      !best || Math.abs(Number(candidate.dataset.x) - x) < Math.abs(Number(best.dataset.x) - x)
        ? candidate : best, null);
  }

  // The guided build's step: its heading names the step it shows (data-step).
  function guideStep() {
    return document.getElementById('guide-heading')?.getAttribute('data-step') ?? null;
  }

  // A button the page marks aria-disabled (Next before the step is answered) is disabled while
  // scripts run; without them it still posts, and the server answers why it cannot go on.
  function syncDisabled() {
    for (const button of document.querySelectorAll('button[aria-disabled]')) {
      button.disabled = button.getAttribute('aria-disabled') === 'true';
    }
  }
  syncDisabled();

  // Fields the person has changed and not yet sent: a patch keeps what they typed. A field is sent
  // when a data-live field posts it, or a data-live form's post is taken (and the form reset); a
  // refused code stays edited, to be corrected.
  const edited = new WeakSet();
  document.addEventListener('input', (event) => {
    if (event.target?.form) edited.add(event.target);
  });
  function sent(form) {
    for (const field of form.elements) edited.delete(field);
  }

  // A patch morphs the page rather than replacing it: elements are matched by id, then by
  // position, and kept, with their focus, caret and selection, scroll positions, a <details>' open
  // state and any edited field's value; only what differs is changed.
  function parsed(html) {
    const template = document.createElement('template');
    template.innerHTML = html;
    return template.content;
  }
  // An item's element, parsed where it goes: inside an <svg> (the inspector's marbles) it is an
  // SVG element, which HTML's parser alone would not make.
  function parsedIn(list, html) {
    if (!(list instanceof SVGElement)) return parsed(html).firstElementChild;
    return parsed(`<svg xmlns="http://www.w3.org/2000/svg">${html}</svg>`).firstElementChild?.firstElementChild;
  }
  function morphContent(element, html) {
    morphChildren(element, parsed(html));
  }
  function morphChildren(live, next) {
    const byID = new Map();
    for (const child of live.children) if (child.id) byID.set(child.id, child);
    let cursor = live.firstChild;
    for (const incoming of Array.from(next.childNodes)) {
      let match = null;
      if (incoming.nodeType === Node.ELEMENT_NODE && incoming.id) {
        const candidate = byID.get(incoming.id);
        if (candidate?.nodeName === incoming.nodeName) match = candidate;
        byID.delete(incoming.id);
      } else if (cursor && cursor.nodeName === incoming.nodeName && !cursor.id) {
        match = cursor;
      }
      if (!match) {
        live.insertBefore(incoming, cursor);
        continue;
      }
      if (match === cursor) cursor = cursor.nextSibling; else live.insertBefore(match, cursor);
      morph(match, incoming);
    }
    while (cursor) {
      const after = cursor.nextSibling;
      cursor.remove();
      cursor = after;
    }
  }
  function morph(live, incoming) {
    if (live.nodeType !== Node.ELEMENT_NODE) {
      if (live.nodeValue !== incoming.nodeValue) live.nodeValue = incoming.nodeValue;
      return;
    }
    const keepsOpen = live.nodeName === 'DETAILS';
    for (const { name, value } of Array.from(incoming.attributes)) {
      if (live.getAttribute(name) !== value && !(keepsOpen && name === 'open')) live.setAttribute(name, value);
    }
    for (const { name } of Array.from(live.attributes)) {
      if (!incoming.hasAttribute(name) && !(keepsOpen && name === 'open')) live.removeAttribute(name);
    }
    morphChildren(live, incoming);
    if (!('value' in live) || !('form' in live) || edited.has(live)) return;
    if (live.type === 'checkbox' || live.type === 'radio') {
      if (live.checked !== incoming.checked) live.checked = incoming.checked;
    } else if (live.value !== incoming.value && live.type !== 'file') {
      live.value = incoming.value;
    }
  }

  // Each fragment the server declares announced (a patch says "announce": "polite" or "status")
  // is read out through one of the page's two live regions, with its new text, once a fast run of
  // changes has settled: arrowing through five colours says the last guitar and its price once.
  // An error inside a fragment speaks for itself (role="alert") and is left out.
  const settle = 500;
  const regions = { polite: 'announce-polite', status: 'announce-status' };
  const pendingAnnouncements = { polite: new Map(), status: new Map() };
  let announceTimer = null;
  function announce(kind, target, element) {
    if (!pendingAnnouncements[kind]) return;
    const scope = (element.querySelector('[data-announced]') || element).cloneNode(true);
    for (const alert of scope.querySelectorAll('[role="alert"]')) alert.remove();
    const label = element.dataset.announceLabel;
    const text = `${label ? `${label} ` : ''}${scope.textContent}`.replace(/\s+/g, ' ').trim();
    if (!text) return;
    pendingAnnouncements[kind].delete(target);
    pendingAnnouncements[kind].set(target, text);
    window.clearTimeout(announceTimer);
    announceTimer = window.setTimeout(() => {
      for (const [which, texts] of Object.entries(pendingAnnouncements)) {
        const region = document.getElementById(regions[which]);
        if (region && texts.size > 0) region.textContent = [...texts.values()].join('. ');
        texts.clear();
      }
    }, settle);
  }

  // While the inspector's "Highlight updates" is on, a patch names the change that caused it
  // ("note"): each fragment it updates is outlined for half a second (no motion: the outline only
  // appears and goes), and keeps the change's name in data-updated-by and its title until the next.
  const outlined = new Map();
  function outline(element, note) {
    element.dataset.updatedBy = note;
    element.title = note;
    element.classList.add('lu-updated');
    window.clearTimeout(outlined.get(element));
    outlined.set(element, window.setTimeout(() => {
      element.classList.remove('lu-updated');
      outlined.delete(element);
    }, 500));
  }

  // Morph the changed fragments in place, keeping keyboard focus where it was. When the guide
  // moves to another step, focus goes to the new step's heading instead, which screen readers
  // then read out ("Step 2 of 5: Color").
  function applyPatch(patch) {
    const active = document.activeElement;
    const activeID = active?.id;
    const stepBefore = guideStep();
    for (const fragment of patch.fragments) {
      const element = document.getElementById(fragment.target);
      if (!element) continue;
      if (isHeld(element)) {
        const copy = withheldCopy(fragment.target, element);
        if (fragment.items) applyItems(copy, fragment.items); else morphContent(copy, fragment.html);
      } else if (fragment.items) {
        applyItems(element, fragment.items);
      } else {
        withheld.delete(fragment.target);
        morphContent(element, fragment.html);
      }
      if (fragment.announce) announce(fragment.announce, fragment.target, element);
      if (patch.note) outline(element, patch.note);
    }
    syncDisabled();
    const stepAfter = guideStep();
    if (stepAfter && stepBefore !== stepAfter) {
      document.getElementById('guide-heading').focus();
    } else if (activeID && document.activeElement !== active) {
      document.getElementById(activeID)?.focus({ preventScroll: true });
    }
  }

  // A list's edits (a new cart line, a new order on the kiosk): each item is an element with an
  // id, replaced where it stands, inserted after the item it follows (a put names it), or removed.
  // A changed item may come as its changed parts, each replaced where it stands.
  function applyItems(element, items) {
    const list = element.querySelector('[data-items]') ?? element;
    // Looked for inside the fragment, which may be a held copy apart from the page.
    const find = (id) => element.querySelector(`#${CSS.escape(id)}`);
    for (const item of items) {
      const current = find(item.id);
      if (item.remove) {
        current?.remove();
        continue;
      }
      const node = parsedIn(list, item.html);
      if (!node) continue;
      if (current) {
        morph(current, node);
      } else if (!('after' in item)) {
        continue; // a part of an item this page does not show
      } else if (item.after === null) {
        list.prepend(node);
      } else {
        const after = find(item.after);
        if (after) after.after(node); else list.append(node);
      }
    }
  }

  // Edits apply to the version just before them. A page that is further behind (it missed a patch
  // while joining) takes none of that patch and asks its stream again from what it shows, which
  // sends whole what changed since.
  function appliesTo(patch, version) {
    if (!patch.fragments.some((fragment) => fragment.items)) return true;
    return version !== null && Number(patch.id) - 1 === Number(version);
  }

  // A page opens a stream only when it has something live to show, and names it (the builder,
  // cart and checkout follow the session's; the kiosk and an order page their own). An error page,
  // the admin report or the "shop is full" page has none, so it never asks for one.
  const streamURL = document.body.getAttribute('data-events');
  // The version of the stream the page was rendered at, then the last event's id: the stream
  // sends what changed since.
  let lastEventID = document.body.getAttribute('data-version');

  // "Reconnecting…" after two quiet seconds without a stream, cleared when it is back: a short
  // blip says nothing, a real outage is told calmly (a status, not an alert).
  let status = null;
  let reconnectingTimer = null;
  function streamDown() {
    root.dataset.live = 'reconnecting';
    if (reconnectingTimer !== null) return;
    reconnectingTimer = window.setTimeout(() => {
      if (!status) {
        status = document.createElement('div');
        status.id = 'connection-status';
        status.className = 'connection-status';
        status.setAttribute('role', 'status');
        document.body.appendChild(status);
      }
      status.textContent = 'Reconnecting…';
      status.hidden = false;
    }, 2000);
  }
  function streamUp() {
    root.dataset.live = 'connected';
    if (reconnectingTimer !== null) window.clearTimeout(reconnectingTimer);
    reconnectingTimer = null;
    if (status) {
      status.hidden = true;
      status.textContent = '';
    }
  }

  // A reload is the last resort (the session the page showed is gone), and happens at most once
  // a minute per tab, whatever the server answers.
  const reloadKey = 'luthier-reloaded-at';
  function reloadSoon(delay) {
    let last = 0;
    try { last = Number(window.sessionStorage.getItem(reloadKey)) || 0; } catch (error) { /* private mode */ }
    const wait = Math.max(delay, last + 60000 - Date.now());
    window.setTimeout(() => {
      try { window.sessionStorage.setItem(reloadKey, String(Date.now())); } catch (error) { /* private mode */ }
      window.location.reload();
    }, wait);
  }

  // A post the shop has not answered within this is given up, and the page says so: a browser
  // queueing posts behind its connections (or a server gone quiet) never leaves a click unanswered.
  const postTimeout = 10000;

  // A post refused for now (503 with Retry-After: the shop at its cap, or its store unable to
  // save; either way nothing changed) is sent again after that wait, with up to as much again at
  // random, at most `busyRetries` times, the page saying so: a customer's choice is not lost to a
  // busy second. A newer post of the same field or form made meanwhile stands for it, and it is
  // not sent again.
  const busyRetries = 3;
  const newestPosts = new Map();

  /** Posts `body` to `url` until it is answered other than busy; true when accepted. `slot` names
   * what a newer post replaces (a field of a form, or the form). */
  async function post(url, body, slot = url) {
    const mine = (newestPosts.get(slot) || 0) + 1;
    newestPosts.set(slot, mine);
    for (let attempt = 0; ; attempt += 1) {
      const answer = await postOnce(url, body);
      if (answer.retryAfter === null || attempt === busyRetries) {
        if (answer.ok) clearNotice(); else showNotice(answer.message);
        return answer.ok;
      }
      const seconds = Math.min(Math.max(answer.retryAfter, 1), 30);
      const wait = seconds * 1000 * (1 + Math.random());
      const shown = Math.ceil(wait / 1000);
      showNotice(`${answer.message.trim()} Your change will be sent again in ${shown} `
        + (shown === 1 ? 'second.' : 'seconds.'));
      await new Promise((resolve) => window.setTimeout(resolve, wait));
      if (newestPosts.get(slot) !== mine) return false;
    }
  }

  /** One post: whether it was accepted, what to tell otherwise, and the seconds to wait when it
   * was refused as busy (null for any other answer). */
  async function postOnce(url, body) {
    const controller = new AbortController();
    const timer = window.setTimeout(() => controller.abort(), postTimeout);
    try {
      const response = await fetch(url, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'X-Requested-With': 'fetch', 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
        signal: controller.signal
      });
      if (response.ok) return { ok: true, message: '', retryAfter: null };
      const message = (await response.text()) || 'That change was not accepted.';
      const header = response.status === 503 ? response.headers.get('Retry-After') : null;
      const retryAfter = header === null ? NaN : Number(header);
      return { ok: false, message, retryAfter: Number.isFinite(retryAfter) ? retryAfter : null };
    } catch (error) {
      const message = error?.name === 'AbortError'
        ? `The shop did not answer within ${postTimeout / 1000} seconds; your change may not `
          + 'have been saved. Reload the page to see where things stand.'
        : 'The shop could not be reached; your last change was not saved.';
      return { ok: false, message, retryAfter: null };
    } finally {
      window.clearTimeout(timer);
    }
  }

  // Forms marked data-live post through fetch: data-live="field" posts each changed field at
  // once (the pickers), data-live="submit" posts on submit (buttons), data-live="form" posts its
  // fields on submit (the discount code). The event stream brings the
  // new page parts back; without it (or without JavaScript) the same forms post as usual.
  document.addEventListener('change', (event) => {
    const input = event.target;
    const form = input.form;
    if (!form || form.dataset.live !== 'field' || !input.name) return;
    const body = new URLSearchParams();
    body.set(input.name, input.value);
    edited.delete(input);
    const action = form.getAttribute('action');
    post(action, body.toString(), `${action} ${input.name}`);
  });

  // A slider that names an <output> (the inspector's scrubber) shows its value as it moves.
  document.addEventListener('input', (event) => {
    const input = event.target;
    const shown = input.dataset?.shows && document.getElementById(input.dataset.shows);
    if (shown) shown.textContent = input.value;
  });

  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!form.dataset.live) return;
    event.preventDefault();
    // The button pressed, when it names its own action (the guide's Back and Next).
    const submitter = event.submitter || null;
    const action = submitter?.getAttribute('formaction') || form.getAttribute('action');
    const button = submitter || form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    const body = form.dataset.live === 'submit' ? '' : new URLSearchParams(new FormData(form)).toString();
    const ok = await post(action, body);
    if (button && document.body.contains(button)) {
      button.disabled = button.getAttribute('aria-disabled') === 'true';
    }
    if (ok && form.dataset.live === 'form') {
      form.reset();
      sent(form);
    }
    // The tab that asked goes on itself (the stream moves only the pages that follow there).
    if (ok && form.dataset.then && window.location.pathname !== form.dataset.then) {
      window.location.assign(form.dataset.then);
    }
  });

  // Every tab of this browser follows its stream through a shared worker, on one connection for all
  // of them (`/streams`: a connection per stream would leave none for a click's post past six);
  // where there is no SharedWorker, the page follows its own stream with the same client.
  const renderedVersion = lastEventID;

  let resync = () => {};

  function received(data) {
    if (data.type === 'patch' && newer(data.id, lastEventID) && !appliesTo(data, lastEventID)) {
      resync();
    } else if (data.type === 'patch' && newer(data.id, lastEventID)) {
      lastEventID = data.id;
      try {
        applyPatch(data);
      } catch (error) {
        showNotice('The page could not be updated; reload it to see the latest.');
      }
    } else if (data.type === 'navigate' && newer(data.id, renderedVersion)) {
      navigate(data.location);
    } else if (data.type === 'status') {
      if (data.live === 'connected') streamUp(); else streamDown();
    } else if (data.type === 'gone') {
      reloadSoon(1500 + Math.random() * 3500);
    }
  }

  function follow(port) {
    port.onmessage = (message) => received(message.data || {});
    const join = () => port.postMessage({
      type: 'subscribe', url: streamURL, since: lastEventID, hidden: isHidden(), hiddenClose
    });
    resync = join;
    join();
    // The worker closes the browser's streams once every tab has been hidden for hiddenClose.
    document.addEventListener('visibilitychange', () => {
      port.postMessage({ type: 'visibility', url: streamURL, hidden: isHidden() });
    });
    window.addEventListener('pagehide', () => port.postMessage({ type: 'leave', url: streamURL }));
    // Back from the back-forward cache: the page is as it was left; join again from there.
    window.addEventListener('pageshow', (event) => {
      if (event.persisted) join();
    });
  }

  function followAlone() {
    const streams = new Streams({
      patch: (url, id, fragments, note) => received({ type: 'patch', id, fragments, note }),
      navigate: (url, id, location) => received({ type: 'navigate', id, location }),
      status: (url, live) => received({ type: 'status', live }),
      gone: () => received({ type: 'gone' })
    });
    resync = () => streams.rewind(streamURL, lastEventID);
    streams.follow(streamURL, lastEventID);
    // Alone, the page closes its own stream once hidden for hiddenClose, and resumes when shown.
    let calmTimer = null;
    document.addEventListener('visibilitychange', () => {
      clearTimeout(calmTimer);
      if (!isHidden()) {
        streams.resume();
      } else if (hiddenClose > 0) {
        calmTimer = setTimeout(() => streams.pause(), hiddenClose);
      }
    });
  }

  function sharedPort() {
    if (!('SharedWorker' in window)) return null;
    try {
      return new SharedWorker(workerURL).port;
    } catch (error) {
      return null;
    }
  }

  if (streamURL) {
    const port = sharedPort();
    if (port) follow(port); else followAlone();
  }
})();
