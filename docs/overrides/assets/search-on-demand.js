/* Load search when the reader first opens it, not with every page; and load the site's own
 * search worker (assets/search-worker.js) in place of Material's lunr worker.
 *
 * On every page load Material requests search/search_index.json (hundreds of KiB) and starts
 * its search worker. This script runs before Material's bundle and holds both back:
 * - the index request is sent once the search box gets focus (click, tap, or the "/" "s" "f"
 *   shortcuts), or at once if the page was opened from a search result (?h=..., whose terms
 *   Material highlights with the index);
 * - the worker is created when Material first posts to it, which it does once the index is in;
 *   it is search-worker.js, which answers Material's messages (see that file for why).
 * See docs/overrides/main.html; tested in tests/test_browser.py and tests/test_search.py. */
(function () {
  var OWN_WORKER = document.currentScript.src.replace(/[^/]*$/, "search-worker.js");
  var start;
  var opened = new Promise(function (resolve) { start = resolve; });
  if (/[?&]h=/.test(location.search)) start();
  document.addEventListener("focusin", function (event) {
    if (event.target.closest && event.target.closest(".md-search")) start();
  });
  document.addEventListener("change", function (event) {
    if (event.target.id === "__search") start();
  });

  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.fnSearchIndex = /\/search\/search_index\.json$/.test(String(url));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    var xhr = this, args = arguments;
    if (!xhr.fnSearchIndex) return send.apply(xhr, args);
    opened.then(function () { send.apply(xhr, args); });
  };

  var RealWorker = window.Worker;
  window.Worker = function (url, options) {
    if (!/\/workers\/search\.[^/]*\.js$/.test(String(url))) return new RealWorker(url, options);
    var real = null, listeners = [];
    function worker() {
      if (!real) {
        real = new RealWorker(OWN_WORKER, options);
        listeners.forEach(function (args) { real.addEventListener.apply(real, args); });
      }
      return real;
    }
    return {
      postMessage: function () { var w = worker(); w.postMessage.apply(w, arguments); },
      addEventListener: function () {
        if (real) real.addEventListener.apply(real, arguments); else listeners.push(arguments);
      },
      removeEventListener: function () {
        var handler = arguments[1];
        if (!real) listeners = listeners.filter(function (args) { return args[1] !== handler; });
        else real.removeEventListener.apply(real, arguments);
      },
      terminate: function () { if (real) real.terminate(); }
    };
  };
})();
