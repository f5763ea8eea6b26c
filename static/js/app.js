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
// A step being recorded holds its panel: the part that sends it (hx-sync="this:drop": one request
// at a time) has its fields and buttons disabled until the answer comes, so that a card typed or a
// button tapped meanwhile waits visibly instead of being dropped without a word. htmx has read the
// form's values before "htmx:beforeRequest", so the request itself is not changed.
(function () {
  "use strict";
  var CONTROLS = "input, button, select, textarea";
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    var part = elt && elt.closest ? elt.closest("[hx-sync]") : null;
    if (!part) { return; }
    part.querySelectorAll(CONTROLS).forEach(function (control) {
      if (!control.disabled) { control.disabled = true; control.setAttribute("data-held", ""); }
    });
  });
  document.addEventListener("htmx:afterRequest", function () {
    document.querySelectorAll("[data-held]").forEach(function (control) {
      control.disabled = false; control.removeAttribute("data-held");
    });
  });
})();
// A part swapped in that asks for the next action (data-reveal: the cage's identity step, its
// confirmation) is brought into sight whole: on the tablet the last player's row put its
// "Continue" below the fold, where nothing said there was more to do.
(function () {
  "use strict";
  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll("[data-reveal]:not([data-revealed])").forEach(function (part) {
      part.setAttribute("data-revealed", "");
      part.scrollIntoView({block: "nearest"});
    });
  });
})();
// A field that comes back focused with text in it (a card, a bet or a bank refused and given back
// as typed; the bank's field opened with its minimum) has that text selected: what the croupier
// types next replaces it. The caret stood at its start, so a card typed after a refused "1x" was
// sent as "9h1x", refused again, and every card after it, until the field was emptied by hand.
(function () {
  "use strict";
  var TYPED = "input[autofocus]:not([type]), input[autofocus][type=text], input[autofocus][type=number]";
  function select(control) {
    if (control && control.matches && control.matches(TYPED) && control.value) {
      try { control.select(); } catch (ignored) { /* a type that cannot be selected: left as it is */ }
    }
  }
  document.addEventListener("focusin", function (evt) { select(evt.target); });
  document.addEventListener("htmx:afterSettle", function () { select(document.activeElement); });
  document.addEventListener("DOMContentLoaded", function () { select(document.activeElement); });
})();
