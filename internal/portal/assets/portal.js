// hookd portal: show times in the viewer's time zone, let one checkbox
// select every dead letter on the page, and show the endpoint form's
// HMAC-SHA256 fields only with that scheme. The pages work without
// it.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var fmt = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric",
    hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short"
  });
  document.querySelectorAll("time[datetime]").forEach(function (el) {
    var d = new Date(el.getAttribute("datetime"));
    if (isNaN(d)) return;
    el.title = el.textContent;
    el.textContent = fmt.format(d);
  });
  var scheme = document.getElementById("signing_scheme");
  var hmacFields = document.getElementById("signing-hmac");
  if (scheme && hmacFields) {
    var showHMAC = function () { hmacFields.hidden = scheme.value !== "hmac-sha256"; };
    scheme.addEventListener("change", showHMAC);
    showHMAC();
  }
  var all = document.getElementById("select-all");
  if (all) {
    all.addEventListener("change", function () {
      document.querySelectorAll('input[type=checkbox][name=id]').forEach(function (box) {
        box.checked = all.checked;
      });
    });
  }
});
