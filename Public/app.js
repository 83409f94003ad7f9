// Luthier's browser side: follows the session's event stream and posts picker changes.
// Every page works without it; this only makes changes live and avoids reloads.
(function () {
  'use strict';
  var root = document.documentElement;
  // The shared worker's address, fingerprinted like this script's (the page names it).
  var workerURL = (document.currentScript && document.currentScript.dataset.worker) || '/events-worker.js';
  if (!('EventSource' in window) || !('fetch' in window) || !('URLSearchParams' in window)) {
    return; // Old browser: the plain forms do everything.
  }
  root.classList.add('js');

  var notice = document.getElementById('notice');
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
  var follows = (document.body.getAttribute('data-follows') || '').split(' ');
  var elsewhere = {
    '/checkout': ['Your checkout is ready, started in another tab. ', 'Go to the checkout'],
    '/': ['The checkout in another tab has ended. ', 'Back to the builder']
  };
  function navigate(location) {
    if (!location || location.charAt(0) !== '/' || location === window.location.pathname) return;
    if (follows.indexOf(location) >= 0) {
      window.location.assign(location);
      return;
    }
    var words = elsewhere[location];
    if (!notice || !words) return;
    notice.textContent = words[0];
    var link = document.createElement('a');
    link.href = location;
    link.textContent = words[1];
    notice.appendChild(link);
    notice.hidden = false;
  }

  // The stream inspector's diagram is held as it is while paused, and while a marble has the
  // keyboard focus or the pointer, so that its text can be read. The diagram is only sent when it
  // moved, so the newest one sent meanwhile is kept, and shown once the hold ends.
  var withheld = {};
  function isHeld(element) {
    if (element.id !== 'inspector-lanes') return false;
    var pause = document.getElementById('inspector-pause');
    return (pause && pause.checked) || element.contains(document.activeElement) || element.matches(':hover');
  }
  function releaseWithheld() {
    Object.keys(withheld).forEach(function (target) {
      var element = document.getElementById(target);
      if (!element || isHeld(element)) return;
      element.innerHTML = withheld[target];
      delete withheld[target];
    });
  }
  var lanes = document.getElementById('inspector-lanes');
  if (lanes) {
    // After the pointer or the focus has really left (the events come before :hover and
    // activeElement say so).
    var later = function () { window.setTimeout(releaseWithheld, 0); };
    lanes.addEventListener('pointerleave', later);
    lanes.addEventListener('focusout', later);
    document.addEventListener('change', function (event) {
      if (event.target && event.target.id === 'inspector-pause') later();
    });
  }

  // The guided build's step: its heading names the step it shows (data-step).
  function guideStep() {
    var heading = document.getElementById('guide-heading');
    return heading ? heading.getAttribute('data-step') : null;
  }

  // A button the page marks aria-disabled (Next before the step is answered) is disabled while
  // scripts run; without them it still posts, and the server answers why it cannot go on.
  function syncDisabled() {
    var buttons = document.querySelectorAll('button[aria-disabled]');
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].disabled = buttons[i].getAttribute('aria-disabled') === 'true';
    }
  }
  syncDisabled();

  // Swap the changed fragments in place, keeping keyboard focus where it was. When the guide
  // moves to another step, focus goes to the new step's heading instead, which screen readers
  // then read out ("Step 2 of 5: Color").
  function applyPatch(patch) {
    var active = document.activeElement;
    var activeID = active && active.id;
    var stepBefore = guideStep();
    patch.fragments.forEach(function (fragment) {
      var element = document.getElementById(fragment.target);
      if (!element) return;
      if (isHeld(element)) {
        withheld[fragment.target] = fragment.html;
      } else {
        delete withheld[fragment.target];
        element.innerHTML = fragment.html;
      }
    });
    syncDisabled();
    var stepAfter = guideStep();
    if (stepAfter && stepBefore !== stepAfter) {
      document.getElementById('guide-heading').focus();
    } else if (activeID && document.activeElement !== active) {
      var again = document.getElementById(activeID);
      if (again) again.focus({ preventScroll: true });
    }
  }

  // A page opens a stream only when it has something live to show, and names it (the builder,
  // cart and checkout follow the session's; the kiosk and an order page their own). An error page,
  // the admin report or the "shop is full" page has none, so it never asks for one.
  var streamURL = document.body.getAttribute('data-events');
  // The version of the stream the page was rendered at, then the last event's id: a stream opened
  // by this script asks for what changed since (a browser's own reconnect sends Last-Event-ID).
  var lastEventID = document.body.getAttribute('data-version');
  function resumeURL() {
    if (!lastEventID) return streamURL;
    return streamURL + (streamURL.indexOf('?') < 0 ? '?' : '&') + 'since=' + encodeURIComponent(lastEventID);
  }

  // "Reconnecting…" after two quiet seconds without a stream, cleared when it is back: a short
  // blip says nothing, a real outage is told calmly (a status, not an alert).
  var status = null;
  var reconnectingTimer = null;
  function streamDown() {
    root.dataset.live = 'reconnecting';
    if (reconnectingTimer !== null) return;
    reconnectingTimer = window.setTimeout(function () {
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
  var reloadKey = 'luthier-reloaded-at';
  function reloadSoon(delay) {
    var last = 0;
    try { last = Number(window.sessionStorage.getItem(reloadKey)) || 0; } catch (error) { /* private mode */ }
    var wait = Math.max(delay, last + 60000 - Date.now());
    window.setTimeout(function () {
      try { window.sessionStorage.setItem(reloadKey, String(Date.now())); } catch (error) { /* private mode */ }
      window.location.reload();
    }, wait);
  }

  // The stream was refused. EventSource hides why, so ask once with fetch and read the status:
  // busy (503, 429) waits the server's Retry-After with jitter, so that screens left open do
  // not all come back in the same second; a session that is gone reloads (at most once a
  // minute); an unreachable server is asked again after a few seconds.
  function probe() {
    var controller = 'AbortController' in window ? new AbortController() : null;
    fetch(resumeURL(), {
      credentials: 'same-origin',
      headers: { 'Accept': 'text/event-stream' },
      signal: controller ? controller.signal : undefined
    }).then(function (response) {
      if (controller) controller.abort();
      if (response.ok) {
        connect();
        return;
      }
      var retryAfter = Number(response.headers.get('Retry-After'));
      if (response.status === 503 || response.status === 429) {
        var seconds = retryAfter > 0 ? Math.min(retryAfter, 3600) : 5;
        window.setTimeout(connect, seconds * 1000 * (1 + Math.random()));
      } else {
        reloadSoon(1500 + Math.random() * 3500);
      }
    }, function () {
      window.setTimeout(probe, 2000 + Math.random() * 3000);
    });
  }

  function connect() {
    var source = new EventSource(resumeURL());
    source.addEventListener('open', streamUp);
    source.addEventListener('patch', function (event) {
      if (event.lastEventId) lastEventID = event.lastEventId;
      try {
        applyPatch(JSON.parse(event.data));
      } catch (error) {
        showNotice('The page could not be updated; reload it to see the latest.');
      }
    });
    source.addEventListener('navigate', function (event) {
      navigate(event.data);
    });
    source.addEventListener('error', function () {
      streamDown();
      if (source.readyState === EventSource.CLOSED) {
        // Refused (not merely cut off, which EventSource retries by itself after `retry:`).
        source.close();
        probe();
      }
    });
  }

  // A post the shop has not answered within this is given up, and the page says so: a browser
  // queueing posts behind its connections (or a server gone quiet) never leaves a click unanswered.
  var postTimeout = 10000;
  function post(url, body) {
    var controller = 'AbortController' in window ? new AbortController() : null;
    var timer = controller ? window.setTimeout(function () { controller.abort(); }, postTimeout) : null;
    function done() { if (timer !== null) window.clearTimeout(timer); }
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'X-Requested-With': 'fetch', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body,
      signal: controller ? controller.signal : undefined
    }).then(function (response) {
      done();
      if (response.ok) {
        clearNotice();
        return true;
      }
      return response.text().then(function (text) {
        showNotice(text || 'That change was not accepted.');
        return false;
      });
    }, function (error) {
      done();
      if (error && error.name === 'AbortError') {
        showNotice('The shop did not answer within ' + postTimeout / 1000 + ' seconds; your change may not '
          + 'have been saved. Reload the page to see where things stand.');
      } else {
        showNotice('The shop could not be reached; your last change was not saved.');
      }
      return false;
    });
  }

  // Forms marked data-live post through fetch: data-live="field" posts each changed field at
  // once (the pickers), data-live="submit" posts on submit (buttons), data-live="form" posts its
  // fields on submit (the discount code). The event stream brings the
  // new page parts back; without it (or without JavaScript) the same forms post as usual.
  document.addEventListener('change', function (event) {
    var input = event.target;
    var form = input.form;
    if (!form || form.dataset.live !== 'field' || !input.name) return;
    var body = new URLSearchParams();
    body.set(input.name, input.value);
    post(form.getAttribute('action'), body.toString());
  });

  // A slider that names an <output> (the inspector's scrubber) shows its value as it moves.
  document.addEventListener('input', function (event) {
    var input = event.target;
    var shown = input.dataset && input.dataset.shows && document.getElementById(input.dataset.shows);
    if (shown) shown.textContent = input.value;
  });

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.dataset.live) return;
    event.preventDefault();
    // The button pressed, when it names its own action (the guide's Back and Next).
    var submitter = event.submitter || null;
    var action = (submitter && submitter.getAttribute('formaction')) || form.getAttribute('action');
    var button = submitter || form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    var body = form.dataset.live === 'submit' ? '' : new URLSearchParams(new FormData(form)).toString();
    post(action, body).then(function (ok) {
      if (button && document.body.contains(button)) {
        button.disabled = button.getAttribute('aria-disabled') === 'true';
      }
      if (ok && form.dataset.live === 'form') form.reset();
      // The tab that asked goes on itself (the stream moves only the pages that follow there).
      if (ok && form.dataset.then && window.location.pathname !== form.dataset.then) {
        window.location.assign(form.dataset.then);
      }
    });
  });

  // Every tab of this browser shares one connection for all its streams through a shared worker
  // (`/streams`: a stream per tab would leave no connection for a click's post past six); where
  // there is no SharedWorker, the page holds its own stream as above.
  var renderedVersion = lastEventID;
  // Ids are a store's epoch (upper 32 bits) and its version: only ids of one epoch compare. An id of
  // another epoch (a restarted server, a restored session) is the server's truth now, so newer.
  function newer(id, than) {
    if (!than) return true;
    if (!id) return false;
    var epoch = Math.floor(Number(id) / 4294967296);
    if (epoch !== Math.floor(Number(than) / 4294967296)) return true;
    return Number(id) > Number(than);
  }

  function follow(port) {
    port.onmessage = function (message) {
      var data = message.data || {};
      if (data.type === 'patch' && newer(data.id, lastEventID)) {
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
    };
    function join() {
      port.postMessage({ type: 'subscribe', url: streamURL, since: lastEventID });
    }
    join();
    window.addEventListener('pagehide', function () {
      port.postMessage({ type: 'leave', url: streamURL });
    });
    // Back from the back-forward cache: the page is as it was left; join again from there.
    window.addEventListener('pageshow', function (event) {
      if (event.persisted) join();
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
    var port = sharedPort();
    if (port) follow(port); else connect();
  }
})();
