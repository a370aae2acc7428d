// The exam page: the time left, and the work saved as it is typed.
// The server's clock is the only clock. The page never reads Date: it takes the server's seconds_left and
// counts it down on performance.now(), the page's own monotonic clock, which a wrong or changed system
// clock does not move; each reply (the page's call every 15 s, each save's) sets it again, measured from
// the middle of the request's round trip. Each save names the revision it was edited from; a save refused
// because another tab saved meanwhile (409) loads what the server holds and keeps this tab's text shown.
(function () {
  "use strict";
  var timer = document.getElementById("time-left");
  if (!timer) { return; }
  var exam = timer.getAttribute("data-exam");
  var csrf = document.querySelector('meta[name="csrf"]').getAttribute("content");
  var saved = document.getElementById("saved");
  var announce = document.getElementById("announce");
  var ends = performance.now() + parseFloat(timer.getAttribute("data-seconds-left")) * 1000;
  var over = false;
  var said = {};

  function sync(secondsLeft, sent, received) {
    if (typeof secondsLeft === "number") { ends = (sent + received) / 2 + secondsLeft * 1000; }
  }

  function clock(seconds) {
    var s = Math.ceil(seconds), h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), r = s % 60;
    return (h ? h + " h " : "") + (h || m ? m + " min " : "") + r + " s";
  }

  function stop(reason) {
    over = true;
    Array.prototype.forEach.call(document.querySelectorAll("textarea[data-exercise]"), function (box) {
      box.readOnly = true;
    });
    saved.textContent = reason + " Reload this page to see what was handed in.";
  }

  function tick() {
    var left = Math.max(0, (ends - performance.now()) / 1000);
    timer.setAttribute("data-seconds", left.toFixed(1));
    timer.textContent = "Time left: " + clock(left);
    [600, 300, 60].forEach(function (mark) {
      if (left <= mark && left > mark - 30 && !said[mark]) {
        said[mark] = true;
        announce.textContent = clock(mark) + " left.";
      }
    });
    if (left <= 0 && !over) { stop("Time is up: your last saved work is being handed in."); }
  }

  function heartbeat() {
    var sent = performance.now();
    fetch("/api/exams/" + encodeURIComponent(exam), {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (r) { return r.json(); })
      .then(function (body) { sync(body.seconds_left, sent, performance.now()); })
      .catch(function () { saved.textContent = "No answer from the server: your work is saved when it answers again."; });
  }

  function saver(box) {
    var exercise = box.getAttribute("data-exercise");
    var receipt = document.getElementById("receipt-" + exercise);
    var pending = null, busy = false, again = false;

    function save() {
      pending = null;
      if (over) { return; }
      if (busy) { again = true; return; }
      busy = true;
      var sent = performance.now();
      fetch("/exercises/" + encodeURIComponent(exercise) + "/draft", {
        method: "POST", credentials: "same-origin", headers: {Accept: "application/json"},
        body: new URLSearchParams({csrf: csrf, code: box.value, base: box.getAttribute("data-revision")})
      }).then(function (r) {
        return r.json().then(function (body) { return {status: r.status, body: body}; });
      }).then(function (answer) {
        var body = answer.body;
        if (answer.status === 200) {
          box.setAttribute("data-revision", String(body.receipt.revision));
          receipt.textContent = "Saved: revision " + body.receipt.revision + " at " + body.receipt.saved_at +
            ", sha256 " + body.receipt.sha256.slice(0, 12) + ".";
          saved.textContent = "Saved " + exercise + " (revision " + body.receipt.revision + ").";
          if (body.exam) { sync(body.exam.seconds_left, sent, performance.now()); }
        } else if (answer.status === 409) {
          var mine = document.createElement("details");
          var summary = document.createElement("summary");
          var text = document.createElement("pre");
          summary.textContent = "This tab's text, not saved: another tab saved " + exercise + " meanwhile";
          text.textContent = box.value;
          mine.appendChild(summary);
          mine.appendChild(text);
          receipt.parentNode.insertBefore(mine, receipt.nextSibling);
          box.value = body.current.code || "";
          box.setAttribute("data-revision", String(body.current.revision));
          saved.textContent = exercise + " was saved from another tab: this page now shows what the server holds.";
        } else if (answer.status === 403) {
          stop(body.error || "Refused.");
        } else {
          saved.textContent = "Not saved (" + (body.error || answer.status) + ").";
        }
      }).catch(function () {
        saved.textContent = "Not saved: no answer from the server. Saving again when you type.";
      }).then(function () {
        busy = false;
        if (again) { again = false; save(); }
      });
    }

    box.addEventListener("input", function () {
      if (pending !== null) { window.clearTimeout(pending); }
      pending = window.setTimeout(save, 800);
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("textarea[data-exercise]"), saver);
  tick();
  heartbeat();
  window.setInterval(tick, 250);
  window.setInterval(heartbeat, 15000);
}());
