// Luthier's browser side: follows the session's event stream and posts picker changes.
// Every page works without it; this only makes changes live and avoids reloads.
(function () {
  'use strict';
  var root = document.documentElement;
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

  // Swap the changed fragments in place, keeping keyboard focus where it was.
  function applyPatch(patch) {
    var active = document.activeElement;
    var activeID = active && active.id;
    patch.fragments.forEach(function (fragment) {
      var element = document.getElementById(fragment.target);
      if (element) element.innerHTML = fragment.html;
    });
    if (activeID && document.activeElement !== active) {
      var again = document.getElementById(activeID);
      if (again) again.focus({ preventScroll: true });
    }
  }

  // The page names its stream (the kiosk's, an order's); the builder and checkout follow the session.
  var streamURL = document.body.getAttribute('data-events') || '/events';

  function connect() {
    var source = new EventSource(streamURL);
    source.addEventListener('open', function () {
      root.dataset.live = 'connected';
    });
    source.addEventListener('patch', function (event) {
      try {
        applyPatch(JSON.parse(event.data));
      } catch (error) {
        showNotice('The page could not be updated; reload it to see the latest.');
      }
    });
    source.addEventListener('navigate', function (event) {
      var location = event.data;
      if (location && location.charAt(0) === '/' && location !== window.location.pathname) {
        window.location.assign(location);
      }
    });
    source.addEventListener('error', function () {
      if (source.readyState === EventSource.CLOSED) {
        // The server refused the stream (the session ended): a reload starts a fresh one.
        // A random delay, so that screens left open do not all reload at the same moment.
        root.dataset.live = 'closed';
        window.setTimeout(function () { window.location.reload(); }, 1500 + Math.random() * 3500);
      } else {
        root.dataset.live = 'reconnecting';
      }
    });
  }

  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'X-Requested-With': 'fetch', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body
    }).then(function (response) {
      if (response.ok) {
        clearNotice();
        return true;
      }
      return response.text().then(function (text) {
        showNotice(text || 'That change was not accepted.');
        return false;
      });
    }, function () {
      showNotice('The shop could not be reached; your last change was not saved.');
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

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.dataset.live) return;
    event.preventDefault();
    var button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    var body = form.dataset.live === 'submit' ? '' : new URLSearchParams(new FormData(form)).toString();
    post(form.getAttribute('action'), body).then(function (ok) {
      if (button && document.body.contains(button)) button.disabled = false;
      if (ok && form.dataset.live === 'form') form.reset();
      // The event stream normally moves the page on; this covers a stream that is down.
      if (ok && form.dataset.then && root.dataset.live !== 'connected') {
        window.location.assign(form.dataset.then);
      }
    });
  });

  connect();
})();
