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
