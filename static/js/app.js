// The only script besides htmx: say so when a request fails outright (network down, server
// error), since htmx then leaves the screen as it was. Everything else is HTML and htmx.
(function () {
  "use strict";
  function show() { var el = document.getElementById("net-error"); if (el) { el.hidden = false; } }
  function hide() { var el = document.getElementById("net-error"); if (el) { el.hidden = true; } }
  document.addEventListener("htmx:responseError", show);
  document.addEventListener("htmx:sendError", show);
  document.addEventListener("htmx:afterSwap", hide);
})();
// Polled parts (data-poll, e.g. the pit boss's live dashboard) rest while the tab is hidden and
// catch up the moment it is shown again ("pitvisible", which their hx-trigger listens to).
(function () {
  "use strict";
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    if (document.hidden && elt && elt.hasAttribute && elt.hasAttribute("data-poll")) { evt.preventDefault(); }
  });
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { document.dispatchEvent(new Event("pitvisible")); }
  });
})();
