// harness9 plan-review page: live transcript, todo list and permission
// asks from the session's Server-Sent Events; review and permission
// buttons post to the API. Model text is only ever set as textContent;
// the plan's HTML comes rendered (and escaped) from the server.
(function () {
  "use strict";
  var root = document.getElementById("session");
  if (!root) { return; }
  var id = root.dataset.id;
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var running = document.getElementById("running").textContent !== "";

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function say(msg) { document.getElementById("message").textContent = msg || ""; }

  function post(path, body) {
    say("");
    return fetch("/api/sessions/" + encodeURIComponent(id) + path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body || {})
    }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) { say(j.error || ("HTTP " + r.status)); }
        return r.ok;
      });
    }).catch(function (e) { say(String(e)); return false; });
  }

  function line(role, text) {
    var li = el("li", "msg role-" + role);
    li.appendChild(el("span", "role", role));
    li.appendChild(document.createTextNode(" "));
    li.appendChild(el("pre", "", text));
    document.getElementById("lines").appendChild(li);
    return li;
  }

  var marks = { completed: "\u2714", in_progress: "\u25b6", cancelled: "\u2298", pending: "\u25cb" };
  function todos(items) {
    var ul = document.getElementById("todo-list");
    ul.textContent = "";
    var done = 0;
    items.forEach(function (t) {
      if (t.status === "completed") { done++; }
      var li = el("li", "todo-" + t.status);
      li.appendChild(el("span", "mark", marks[t.status] || "?"));
      li.appendChild(document.createTextNode(" " + t.content));
      ul.appendChild(li);
    });
    document.getElementById("todo-count").textContent = done + "/" + items.length;
  }

  function setAwaiting(on) {
    var box = document.getElementById("plan-box");
    if (box) { box.dataset.awaiting = on ? "true" : "false"; }
    document.querySelectorAll("button.review").forEach(function (b) { b.disabled = !on; });
  }

  function loadPlan() {
    return fetch("/s/" + encodeURIComponent(id) + "/plan", { credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        document.getElementById("plan").innerHTML = html; // server-rendered, escaped
        wireReview();
        setAwaiting(document.getElementById("plan-box").dataset.awaiting === "true");
      });
  }

  function ask(a) {
    if (document.getElementById("ask-" + a.id)) { return; }
    var d = el("div", "ask");
    d.id = "ask-" + a.id;
    d.appendChild(el("strong", "", a.tool));
    d.appendChild(el("p", "hint", a.why));
    d.appendChild(el("pre", "", a.preview));
    var reason = el("input", "reason");
    reason.placeholder = "Reason (sent to the model on deny)";
    [["allow", "Allow once"], ["always", "Always allow"], ["deny", "Deny"]].forEach(function (x) {
      var b = el("button", "answer answer-" + x[0], x[1]);
      b.type = "button";
      b.addEventListener("click", function () {
        post("/permissions/" + encodeURIComponent(a.id), { answer: x[0], reason: reason.value })
          .then(function (ok) { if (ok) { d.remove(); } });
      });
      d.appendChild(b);
    });
    d.appendChild(reason);
    document.getElementById("ask-list").appendChild(d);
  }

  function wireReview() {
    document.querySelectorAll("button.review").forEach(function (b) {
      b.addEventListener("click", function () {
        var fb = document.getElementById("feedback");
        setAwaiting(false);
        post("/review", { choice: b.dataset.choice, feedback: fb ? fb.value : "" })
          .then(function (ok) { if (!ok) { setAwaiting(true); } });
      });
    });
  }

  wireReview();
  setAwaiting(document.getElementById("plan-box").dataset.awaiting === "true" && !running);
  JSON.parse(document.getElementById("initial-asks").textContent || "[]").forEach(ask);
  document.getElementById("send-prompt").addEventListener("click", function () {
    var p = document.getElementById("prompt");
    if (p.value.trim() === "") { say("Write a prompt first."); return; }
    post("/prompt", { prompt: p.value }).then(function (ok) { if (ok) { p.value = ""; } });
  });
  document.getElementById("cancel-run").addEventListener("click", function () { post("/cancel"); });

  var url = "/api/sessions/" + encodeURIComponent(id) + "/events";
  if (root.dataset.lastEventId) { url += "?last_event_id=" + encodeURIComponent(root.dataset.lastEventId); }
  var es = new EventSource(url, { withCredentials: true });
  function on(type, fn) {
    es.addEventListener(type, function (m) { if (typeof m.data === "string") { fn(JSON.parse(m.data)); } });
  }
  on("text", function (e) { line("assistant", e.text); });
  on("tool_call", function (e) { line("tool_call", e.name + " " + JSON.stringify(e.input)); });
  on("tool_result", function (e) { line(e.is_error ? "tool_error" : "tool", e.output); });
  on("todos", function (e) { todos(e.items); });
  on("plan", function () { loadPlan(); });
  on("permission_ask", ask);
  on("permission_answered", function (e) {
    var d = document.getElementById("ask-" + e.id);
    if (d) { d.remove(); }
  });
  on("review", function () { setAwaiting(false); });
  on("error", function (e) { if (e && e.message) { line("error", e.message); } });
  on("done", function (e) { document.getElementById("status").textContent = e.status; });
  on("state", function (e) {
    running = e.running;
    document.getElementById("status").textContent =
      e.status === "idle" && e.last_run ? "idle, last run " + e.last_run : e.status;
    document.getElementById("mode").textContent = e.mode;
    document.getElementById("running").textContent = e.running ? " (running)" : "";
    if (e.status === "awaiting_approval" && !e.running) { loadPlan(); } else { setAwaiting(false); }
  });
  on("session", function (e) {
    document.getElementById("mode").textContent = e.mode;
    document.getElementById("running").textContent = " (running)";
  });
})();
