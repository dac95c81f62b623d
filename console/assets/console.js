// Warden console: keeps the list of pending approval requests current
// through server-sent events. Values are set as text, never as markup.
"use strict";
(function () {
  var table = document.getElementById("pending");
  if (!table || !window.EventSource) { return; }
  var empty = document.getElementById("pending-empty");
  var body = table.tBodies[0];
  var es = new EventSource(table.getAttribute("data-live"));
  es.addEventListener("pending", function (ev) {
    var items;
    try { items = JSON.parse(ev.data); } catch (e) { return; }
    while (body.firstChild) { body.removeChild(body.firstChild); }
    items.forEach(function (it) {
      var tr = document.createElement("tr");
      var td = document.createElement("td");
      var a = document.createElement("a");
      a.href = "/console/approvals/" + encodeURIComponent(it.id);
      a.textContent = it.tool;
      td.appendChild(a);
      tr.appendChild(td);
      [it.trust, it.created, it.expires].forEach(function (v) {
        var c = document.createElement("td");
        c.textContent = v;
        tr.appendChild(c);
      });
      body.appendChild(tr);
    });
    table.hidden = items.length === 0;
    empty.hidden = items.length !== 0;
  });
})();
